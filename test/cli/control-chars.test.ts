// Control characters in data or arguments never reach a terminal through messages: what the
// service echoes back (an unknown attribute's name), and what a person typed (an id).
import { describe, expect, it } from 'vitest';
import { cli, JAN } from './harness.js';

// A C0 or C1 control or DEL (\p{Cc}), but tab and newline.
const CONTROL = /[^\P{Cc}\t\n]/u;

describe('messages on stderr', () => {
  it('an attribute name with ESC and BEL, echoed in the service refusal, is escaped', async () => {
    const result = await cli().run(['customers', 'create', ...JAN, '--data', '{"x\\u001b[2J\\u0007":1}']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('error: x\\x1b[2J\\x07: is not a known attribute\n');
    expect(result.stderr).not.toMatch(CONTROL);
  });

  it('an argument with a carriage return, quoted in a usage error, is escaped', async () => {
    const result = await cli().run(['customers', 'get', '12\rFAKE']);
    expect(result.code).toBe(2);
    expect(result.stderr).not.toMatch(CONTROL);
    expect(result.stderr).toContain('12\\x0dFAKE');
  });

  it('an unknown option with ESC, reported by the parser, is escaped', async () => {
    const result = await cli().run(['customers', 'list', '--\x1b[31mred']);
    expect(result.code).toBe(2);
    expect(result.stderr).not.toMatch(CONTROL);
  });
});
