// docs/commands.md is generated from the commands (npm run docs); a command changed without running
// it again leaves the committed reference stale, and this test fails.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { commandReference, REFERENCE_PATH, renderReference } from '../scripts/command-reference.js';
import { buildProgram } from '../src/cli.js';
import { memoryIO } from '../src/lib/cli/io.js';

const STALE = 'docs/commands.md is not what the commands generate: run `npm run docs` and commit the result';

function committed(): string {
  try {
    return readFileSync(REFERENCE_PATH, 'utf8').replace(/\r\n/g, '\n');
  } catch (error) {
    throw new Error(`${STALE} (${(error as Error).message})`, { cause: error });
  }
}

describe('docs/commands.md', () => {
  test('is the reference generated from the commands, in full', async () => {
    expect(await commandReference(), STALE).toBe(committed());
  });

  test('has every group and verb the program has, with its options', async () => {
    const program = await buildProgram(memoryIO(), undefined, { all: true });
    const reference = renderReference(program);
    for (const option of program.options) expect(reference).toContain(`- \`${option.flags}\``);
    for (const group of program.commands) {
      expect(reference).toContain(`\n## billing ${group.name()}\n`);
      for (const option of group.options) expect(reference).toContain(`- \`${option.flags}\``);
      for (const verb of group.commands) {
        expect(reference).toContain(`\n### billing ${group.name()} ${verb.name()}\n`);
        for (const option of verb.options) expect(reference).toContain(`- \`${option.flags}\``);
      }
    }
  });

  test('changes when an option of a verb changes (so the comparison catches it)', async () => {
    const program = await buildProgram(memoryIO(), undefined, { all: true });
    const before = renderReference(program);
    const create = program.commands.find((c) => c.name() === 'customers')!.commands.find((c) => c.name() === 'create')!;
    create.options.find((o) => o.long === '--email')!.description = 'where invoices go';
    const after = renderReference(program);
    expect(after).not.toBe(before);
    expect(after).toContain('- `--email <text>`: where invoices go');
  });
});

describe('docs/', () => {
  const dir = dirname(REFERENCE_PATH);
  const pages = readdirSync(dir).filter((name) => name.endsWith('.md'));
  /** Heading anchors as GitHub makes them. */
  const anchors = (page: string) =>
    new Set(
      [...readFileSync(join(dir, page), 'utf8').matchAll(/^#+ (.+)$/gm)].map(([, text]) =>
        text
          .toLowerCase()
          .replace(/[^a-z0-9 _-]/g, '')
          .replace(/ /g, '-'),
      ),
    );

  test.each(pages)('%s links only to pages and headings of docs/', (page) => {
    const text = readFileSync(join(dir, page), 'utf8').replace(/^(`{3,}).*\n[\s\S]*?^\1$/gm, '');
    for (const [, target] of text.matchAll(/\]\(([^)\s]*)\)/g)) {
      expect(target, `${page}: ${target}`).not.toMatch(/^(\w+:|\/|\.\.)/);
      const [file, anchor] = target.split('#');
      const linked = file === '' ? page : file;
      expect(existsSync(join(dir, linked)), `${page}: ${target}`).toBe(true);
      if (anchor !== undefined) expect(anchors(linked).has(anchor), `${page}: ${target}`).toBe(true);
    }
  });
});
