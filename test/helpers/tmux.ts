// A real terminal for end-to-end tests of prompts and tables: the built CLI runs inside a tmux pane
// of a fixed size, keys are sent as a person types them, and the screen is read back. Each terminal
// has its own tmux server (-L), so tests never touch a person's sessions; close() stops it.
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';

export interface Terminal {
  /** Keys as tmux names them ('Enter', 'C-c', 'BSpace', 'Down') or literal text with { literal: true }. */
  send(keys: string[], options?: { literal?: boolean }): void;
  type(text: string): void;
  /** The visible screen, one string per line, trailing spaces removed. */
  screen(): string[];
  /** Waits (bounded) until the screen shows the text; returns the screen. */
  waitFor(text: string | RegExp, timeoutMs?: number): Promise<string[]>;
  close(): void;
}

const tmux = (socket: string, args: string[]) => {
  const result = spawnSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`tmux ${args.join(' ')} failed: ${result.stderr}`);
  return result.stdout;
};

/**
 * Starts `command` (a shell command line) in a terminal of width x height. `env` is set for it, CI
 * is removed (a CI machine sets it, and with it no prompt would ever appear), and after the command
 * ends the pane shows `EXIT=<code>` and stays until close().
 */
export function terminal(
  command: string,
  options: { width?: number; height?: number; env?: Record<string, string> } = {},
): Terminal {
  const socket = `billing-test-${randomUUID()}`;
  const exports = Object.entries({ TERM: 'xterm-256color', ...options.env })
    .map(([k, v]) => `${k}='${v.replace(/'/g, `'\\''`)}'`)
    .join(' ');
  const script = `unset CI; export ${exports}; ${command}; echo "EXIT=$?"; sleep 600`;
  tmux(socket, [
    'new-session',
    '-d',
    '-s',
    'test',
    '-x',
    String(options.width ?? 80),
    '-y',
    String(options.height ?? 24),
    'sh',
    '-c',
    script,
  ]);
  const self: Terminal = {
    send(keys, sendOptions = {}) {
      tmux(socket, ['send-keys', '-t', 'test', ...(sendOptions.literal ? ['-l'] : []), ...keys]);
    },
    type(text) {
      self.send([text], { literal: true });
    },
    screen() {
      return tmux(socket, ['capture-pane', '-p', '-t', 'test'])
        .split('\n')
        .map((line) => line.trimEnd());
    },
    async waitFor(text, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const screen = self.screen();
        const joined = screen.join('\n');
        if (typeof text === 'string' ? joined.includes(text) : text.test(joined)) return screen;
        if (Date.now() > deadline) throw new Error(`the terminal never showed ${String(text)}; it shows:\n${joined}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    close() {
      spawnSync('tmux', ['-L', socket, 'kill-server']);
    },
  };
  return self;
}
