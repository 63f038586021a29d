// Where a command writes. Injected, so run functions are tested with exact output.
export interface IO {
  /** Data: tables, documents. */
  out(text: string): void;
  /** Messages, progress, errors. */
  err(text: string): void;
  readonly stdinIsTTY: boolean;
  readonly stdoutIsTTY: boolean;
  /** Whether stderr is a terminal (progress bars); absent is no. */
  readonly stderrIsTTY?: boolean;
  /** The terminal's width when stdout is a terminal; tables fit it. */
  readonly columns?: number;
  readStdin(): Promise<string>;
}

export function processIO(): IO {
  // `billing customers list | head`: the reader has gone; stop quietly, as other tools do.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
  return {
    out: (text) => void process.stdout.write(text),
    err: (text) => void process.stderr.write(text),
    stdinIsTTY: Boolean(process.stdin.isTTY),
    stdoutIsTTY: Boolean(process.stdout.isTTY),
    stderrIsTTY: Boolean(process.stderr.isTTY),
    columns: process.stdout.isTTY ? process.stdout.columns : undefined,
    async readStdin() {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
  };
}

/** An IO that records everything, for tests. */
export function memoryIO(options: { stdin?: string; tty?: boolean; columns?: number } = {}): IO & { stdout: string; stderr: string } {
  const io = {
    stdout: '',
    stderr: '',
    out(text: string) {
      io.stdout += text;
    },
    err(text: string) {
      io.stderr += text;
    },
    stdinIsTTY: options.tty ?? false,
    stdoutIsTTY: options.tty ?? false,
    stderrIsTTY: options.tty ?? false,
    columns: options.columns ?? (options.tty ? 80 : undefined),
    readStdin: async () => options.stdin ?? '',
  };
  return io;
}
