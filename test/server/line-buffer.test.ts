import { describe, expect, it } from 'vitest';
import { lineBuffer } from '../../src/lib/server/line-buffer.js';

describe('request log line buffer', () => {
  it('writes the lines of one turn of the event loop in one write, in order, before the next turn', async () => {
    const writes: string[] = [];
    const log = lineBuffer((text) => writes.push(text));
    log.line('GET /customers/1 200 0ms');
    log.line('GET /customers/2 404 0ms');
    expect(writes).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual(['GET /customers/1 200 0ms\nGET /customers/2 404 0ms\n']);
    log.line('POST /customers 201 3ms');
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual(['GET /customers/1 200 0ms\nGET /customers/2 404 0ms\n', 'POST /customers 201 3ms\n']);
  });

  it('flush writes what is queued at once, and nothing when nothing is', () => {
    const writes: string[] = [];
    const scheduled: (() => void)[] = [];
    const log = lineBuffer((text) => writes.push(text), (fn) => scheduled.push(fn));
    log.line('GET /customers 200 1ms');
    log.flush();
    expect(writes).toEqual(['GET /customers 200 1ms\n']);
    for (const fn of scheduled) fn(); // the scheduled write finds nothing left
    log.flush();
    expect(writes).toEqual(['GET /customers 200 1ms\n']);
    log.line('GET /subscription-plans 200 1ms');
    expect(scheduled).toHaveLength(2); // a line after a flush schedules its own write
  });
});
