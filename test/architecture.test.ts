// The layers of src/, and a walk of every import (static, type-only, re-export, lazy import())
// that fails on one pointing up. A layer may use any layer below it and its own; never one above.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

/** Top to bottom. A folder of src/lib (or src/commands, src/cli.ts) belongs to exactly one layer. */
const LAYERS: readonly (readonly string[])[] = [
  ['cli.ts', 'commands'],
  ['lib/command', 'lib/completion'],
  ['lib/output', 'lib/prompts', 'lib/import', 'lib/config'],
  ['lib/cli'],
  ['lib/transport', 'lib/runtime'],
  ['lib/server', 'lib/api', 'lib/pages'],
  ['lib/core'],
  ['lib/schemas', 'lib/store', 'lib/sepa'],
];

function filesUnder(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return filesUnder(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The layer of a file of src/, by its place: src/lib/<folder>/..., src/commands/..., src/cli.ts. */
function layerOf(file: string): { layer: number; name: string } {
  const parts = relative(SRC, file).split('/');
  const name = parts[0] === 'lib' ? `lib/${parts[1]}` : parts[0];
  const layer = LAYERS.findIndex((names) => names.includes(name));
  return { layer, name };
}

/** Every module a file names: imports of any kind, re-exports and import() calls, relative ones resolved. */
function importsOf(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return info.importedFiles
    .map((imported) => imported.fileName)
    .filter((name) => name.startsWith('.'))
    .map((name) => resolve(dirname(file), name).replace(/\.js$/, '.ts'));
}

const files = filesUnder(SRC);

describe('the layers of src/', () => {
  it('places every file of src/ in a layer', () => {
    const unplaced = files.filter((file) => layerOf(file).layer === -1).map((file) => relative(SRC, file));
    expect(unplaced).toEqual([]);
  });

  it('has no import pointing up a layer (type-only and lazy imports included)', () => {
    const upward: string[] = [];
    for (const file of files) {
      const from = layerOf(file);
      for (const target of importsOf(file)) {
        const to = layerOf(target);
        if (to.layer !== -1 && to.layer < from.layer)
          upward.push(`${relative(SRC, file)} -> ${relative(SRC, target)} (${from.name} may not use ${to.name})`);
      }
    }
    expect(upward).toEqual([]);
  });

  it('keeps the command side above the runtime: no command reaches the core, the store, the API or the server', () => {
    const runtime = LAYERS.findIndex((names) => names.includes('lib/runtime'));
    const hidden = ['lib/server', 'lib/api', 'lib/pages', 'lib/core', 'lib/store'];
    const reaching: string[] = [];
    for (const file of files) {
      const from = layerOf(file);
      if (from.layer >= runtime) continue;
      for (const target of importsOf(file)) {
        const to = layerOf(target);
        if (hidden.includes(to.name)) reaching.push(`${relative(SRC, file)} -> ${relative(SRC, target)}`);
      }
    }
    expect(reaching).toEqual([]);
  });

  it('sees the imports it must judge: a made-up upward import is found', () => {
    const info = ts.preProcessFile(
      "import type { X } from '../../lib/core/a.js';\nconst y = await import('../api/b.js');\nexport { z } from './c.js';",
      true,
      true,
    );
    expect(info.importedFiles.map((imported) => imported.fileName)).toEqual([
      '../../lib/core/a.js',
      '../api/b.js',
      './c.js',
    ]);
  });

  it('keeps SQL in store/ and core/: no other folder builds a query', () => {
    const outside = files.filter((file) => !['lib/store', 'lib/core'].includes(layerOf(file).name));
    const querying = outside.filter((file) =>
      /\b(selectFrom|insertInto|updateTable|deleteFrom|selectNoFrom)\(|sql`/.test(readFileSync(file, 'utf8')),
    );
    expect(querying.map((file) => relative(SRC, file))).toEqual([]);
  });
});
