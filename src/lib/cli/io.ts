// Where a command writes. Injected, so run functions are tested with exact output.
import { fstatSync, statSync, writeSync } from 'node:fs';
import { isatty } from 'node:tty';

/** How a run is cut short from outside: Ctrl-C (or SIGTERM), or the reader of stdout gone (a broken pipe). */
export type Interruption = 'signal' | 'pipe';

export interface IO {
  /** Data: tables, documents. */
  out(text: string): void;
  /**
   * Data that may go on for long (streamed exports): resolves once the output can take more, so a
   * slow reader holds the writer back instead of the text piling up in memory. Absent: use out.
   */
  write?(text: string): Promise<void>;
  /** Messages, progress, errors. */
  err(text: string): void;
  /**
   * Tells the listener when the run is cut short from outside, until the returned function is
   * called. After 'pipe' the process ends as soon as the listeners return (nothing can be written
   * any more), so a listener says what it has to say at once. A second Ctrl-C ends it at once.
   */
  onInterrupt?(listener: (cause: Interruption) => void): () => void;
  readonly stdinIsTTY: boolean;
  readonly stdoutIsTTY: boolean;
  /** Whether stderr is a terminal (progress bars); absent is no. */
  readonly stderrIsTTY?: boolean;
  /** The terminal's width when stdout is a terminal; tables fit it. */
  readonly columns?: number;
  /** Standard input whole, as bytes (whoever reads it decides how they are text). */
  readStdin(): Promise<Buffer>;
  /** Standard input as it arrives, for input of any size (imports); absent: readStdin. */
  stdinStream?(): AsyncIterable<Uint8Array>;
}

/** The signals that cut a run short as Ctrl-C does. */
const STOPPING = ['SIGINT', 'SIGTERM'] as const;

export function processIO(): IO {
  const listeners = new Set<(cause: Interruption) => void>();
  const tell = (cause: Interruption) => {
    for (const listener of [...listeners]) listener(cause);
  };
  let signals = 0;
  // Only while someone listens: otherwise Ctrl-C ends the process as it always has (exit 130). A
  // SIGTERM (a supervisor stopping `billing listen`, a job runner's timeout) stops the run as
  // Ctrl-C does: after what is in hand, saying where to go on.
  let stdinIsTTY: boolean | undefined;
  let stderrIsTTY: boolean | undefined;
  const onSignal = () => {
    if (++signals > 1) process.exit(130);
    tell('signal');
  };
  // `billing customers list | head`: the reader has gone; stop quietly, as other tools do.
  const readerGone = () => {
    tell('pipe');
    process.exit(process.exitCode ?? 0);
  };
  // process.stdout is made when first needed: for a file or a pipe it loads Node's streams (about 3.5
  // ms of every start), and a command's one document or table is written whole with write(2) instead.
  // A terminal, a streamed export and a descriptor that would block (EAGAIN) get the stream.
  const stdoutIsTTY = isTerminal(1);
  let stream: NodeJS.WriteStream | undefined;
  const stdout = (): NodeJS.WriteStream => {
    if (stream) return stream;
    stream = process.stdout;
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') readerGone();
      throw error;
    });
    return stream;
  };
  // Messages whose reader has gone (`2>&1 | head`) are lost, not the command: its work and exit code stand.
  let messages: NodeJS.WriteStream | undefined;
  const stderr = (): NodeJS.WriteStream => {
    if (messages) return messages;
    messages = process.stderr;
    messages.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
    });
    return messages;
  };
  const out = (text: string): void => {
    if (stream || stdoutIsTTY) {
      stdout().write(text);
      return;
    }
    const bytes = Buffer.from(text);
    let written = 0;
    try {
      while (written < bytes.length) written += writeSync(1, bytes, written);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EPIPE') readerGone();
      if (code !== 'EAGAIN') throw error;
      stdout().write(bytes.subarray(written));
    }
  };
  return {
    out,
    write: (text) =>
      stdout().write(text) ? Promise.resolve() : new Promise((resolve) => stdout().once('drain', resolve)),
    err: (text) => void stderr().write(text),
    onInterrupt(listener) {
      if (listeners.size === 0) for (const name of STOPPING) process.on(name, onSignal);
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0) for (const name of STOPPING) process.off(name, onSignal);
      };
    },
    // Asked when first needed, and of the descriptor: process.stdin would make a stream (about 2.5
    // ms) most commands never read, and node:tty or a pipe's stream for stderr loads node:net
    // (about 3 ms) for commands that never prompt or write a message.
    get stdinIsTTY() {
      return (stdinIsTTY ??= isTerminal(0));
    },
    stdoutIsTTY,
    get stderrIsTTY() {
      return (stderrIsTTY ??= Boolean(process.stderr.isTTY));
    },
    columns: stdoutIsTTY ? stdout().columns : undefined,
    async readStdin() {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks);
    },
    stdinStream: () => process.stdin,
  };
}

let nullDevice: number | undefined;
/**
 * Whether a descriptor is a terminal, asking node:tty (which loads node:net) only of a character
 * device other than /dev/null: a file, a pipe, a socket or /dev/null is no terminal.
 */
function isTerminal(fd: number): boolean {
  try {
    const stats = fstatSync(fd);
    if (!stats.isCharacterDevice()) return false;
    nullDevice ??= statSync('/dev/null').rdev;
    if (stats.rdev === nullDevice) return false;
  } catch {
    // no /dev/null (Windows), or a descriptor fstat cannot read: node:tty decides
  }
  return isatty(fd);
}

export type MemoryIO = IO & {
  stdout: string;
  stderr: string;
  /** Cuts the run short as Ctrl-C or a broken pipe would (tests). */
  interrupt(cause: Interruption): void;
};

/** An IO that records everything, for tests. */
export function memoryIO(options: { stdin?: string | Uint8Array; tty?: boolean; columns?: number } = {}): MemoryIO {
  const listeners = new Set<(cause: Interruption) => void>();
  const io: MemoryIO = {
    stdout: '',
    stderr: '',
    out(text: string) {
      io.stdout += text;
    },
    write(text: string) {
      io.stdout += text;
      return Promise.resolve();
    },
    err(text: string) {
      io.stderr += text;
    },
    onInterrupt(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    interrupt(cause) {
      for (const listener of [...listeners]) listener(cause);
    },
    stdinIsTTY: options.tty ?? false,
    stdoutIsTTY: options.tty ?? false,
    stderrIsTTY: options.tty ?? false,
    columns: options.columns ?? (options.tty ? 80 : undefined),
    readStdin: () => Promise.resolve(Buffer.from(options.stdin ?? '')),
  };
  return io;
}
