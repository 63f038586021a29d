// The request log's writer. stderr is synchronous for files and pipes, so one write per request
// is one system call per request; lines gathered during a turn of the event loop go out together.

export interface LineBuffer {
  /** Queues one line (without newline); it is written before the next turn of the event loop. */
  line(text: string): void;
  /** Writes what is queued now (at shutdown). */
  flush(): void;
}

export function lineBuffer(write: (text: string) => void, schedule: (fn: () => void) => unknown = setImmediate): LineBuffer {
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
      if (!scheduled) {
        scheduled = true;
        schedule(flush);
      }
    },
    flush,
  };
}
