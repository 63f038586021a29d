// The request log's writer. stderr is synchronous for files and pipes, so one write per request
// is one system call per request; lines are gathered and written together a moment later (or at
// once when much is waiting, and at shutdown), as loggers built for servers do.

export interface LineBuffer {
  /** Queues one line (without newline); it is written within `delayMs`. */
  line: (text: string) => void;
  /** Writes what is queued now (shutdown, exit). */
  flush: () => void;
}

export interface LineBufferOptions {
  /** Longest a line waits; default 50 ms. */
  delayMs?: number;
  /** Queued text above this many characters is written at once; default 64 KiB. */
  maxPending?: number;
  /** Runs fn after ms; injectable for tests. The default timer does not keep the process alive. */
  schedule?: (fn: () => void, ms: number) => unknown;
}

const unrefTimer = (fn: () => void, ms: number) => setTimeout(fn, ms).unref();

export function lineBuffer(write: (text: string) => void, options: LineBufferOptions = {}): LineBuffer {
  const { delayMs = 50, maxPending = 64 * 1024, schedule = unrefTimer } = options;
  let pending = '';
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (pending === '') return;
    const text = pending;
    pending = '';
    write(text);
  };
  return {
    line(text) {
      pending += `${text}\n`;
      if (pending.length >= maxPending) flush();
      else if (!scheduled) {
        scheduled = true;
        schedule(flush, delayMs);
      }
    },
    flush,
  };
}
