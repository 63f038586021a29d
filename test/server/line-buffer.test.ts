import { describe, expect, it } from 'vitest';
import { lineBuffer } from '../../src/lib/server/line-buffer.js';

describe('request log line buffer', () => {
  it('writes the lines queued within the delay in one write, in order, and then the next ones in another', async () => {
    const writes: string[] = [];
    const log = lineBuffer((text) => writes.push(text), { delayMs: 5 });
    log.line('GET /customers/1 200 0ms');
    log.line('GET /customers/2 404 0ms');
    expect(writes).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(writes).toEqual(['GET /customers/1 200 0ms\nGET /customers/2 404 0ms\n']);
    log.line('POST /customers 201 3ms');
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(writes).toEqual(['GET /customers/1 200 0ms\nGET /customers/2 404 0ms\n', 'POST /customers 201 3ms\n']);
  });

  it('writes at once when much is waiting, and flush writes what is queued (nothing when nothing is)', () => {
    const writes: string[] = [];
    const scheduled: (() => void)[] = [];
    const log = lineBuffer((text) => writes.push(text), { maxPending: 40, schedule: (fn) => scheduled.push(fn) });
    log.line('GET /customers 200 1ms');
    expect(writes).toEqual([]);
    log.line('GET /customers 200 2ms');
    expect(writes).toEqual(['GET /customers 200 1ms\nGET /customers 200 2ms\n']);
    log.line('GET /subscription-plans 200 1ms');
    log.flush();
    expect(writes).toHaveLength(2);
    expect(writes[1]).toBe('GET /subscription-plans 200 1ms\n');
    for (const fn of scheduled) fn(); // the scheduled writes find nothing left
    log.flush();
    expect(writes).toHaveLength(2);
  });
});
