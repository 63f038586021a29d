// A progress bar on stderr for long jobs (imports), through cli-progress: on a terminal only; a pipe
// or a log file gets none (the summary at the end says what happened).
import type { IO } from '../cli/io.js';

export interface Progress {
  /** Work done so far (bytes of the input), and rows handled. */
  update(done: number, rows: number): void;
  stop(): void;
}

const none: Progress = { update() {}, stop() {} };

/** A bar over `total` units (bytes), with rows, rows per second and the time left. */
export async function progressBar(io: IO, total: number, noun: string, quiet: boolean): Promise<Progress> {
  if (!io.stderrIsTTY || quiet || total === 0) return none;
  const { SingleBar } = (await import('cli-progress')).default;
  const started = Date.now();
  let rows = 0;
  const bar = new SingleBar({
    stream: process.stderr,
    format: `{bar} {percentage}% | {rows} ${noun} | {rate}/s | {eta_formatted} left`,
    hideCursor: true,
    clearOnComplete: true,
    fps: 5,
    etaBuffer: 50,
  });
  const rate = () => Math.round(rows / Math.max(0.001, (Date.now() - started) / 1000)).toLocaleString('en');
  bar.start(total, 0, { rows: '0', rate: '0' });
  return {
    update(done, count) {
      rows = count;
      bar.update(done, { rows: count.toLocaleString('en'), rate: rate() });
    },
    stop() {
      bar.stop();
    },
  };
}
