// Validates files against the official ISO 20022 schemas with xmllint (Debian's libxml2-utils):
// many files per call, since starting xmllint and compiling a schema costs more than a file.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export type SchemaName =
  'pain.008.001.02' | 'pain.008.001.08' | 'camt.054.001.02' | 'camt.054.001.08' | 'camt.053.001.02';

export const XSD_DIR = fileURLToPath(new URL('../fixtures/iso20022/', import.meta.url));

/** xmllint's complaints about each file that does not validate (an empty map when all do). */
export async function schemaErrors(files: string[], schema: SchemaName): Promise<Map<string, string>> {
  const errors = new Map<string, string>();
  if (files.length === 0) return errors;
  const { code, stderr } = await new Promise<{ code: number; stderr: string }>((resolve, reject) => {
    execFile(
      'xmllint',
      ['--noout', '--schema', join(XSD_DIR, `${schema}.xsd`), ...files],
      { maxBuffer: 64 * 1024 * 1024 },
      (error, _stdout, stderr) => {
        if (error && (error as NodeJS.ErrnoException).code === 'ENOENT') {
          reject(new Error("xmllint is missing: install Debian's libxml2-utils (.ci/run does)"));
        } else {
          resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stderr });
        }
      },
    );
  });
  for (const file of files) {
    if (stderr.includes(`${file} fails to validate`) || stderr.includes(`${file}:`)) {
      errors.set(
        file,
        stderr
          .split('\n')
          .filter((line) => line.startsWith(file))
          .join('\n'),
      );
    }
  }
  if (code !== 0 && errors.size === 0) throw new Error(`xmllint failed (${code}): ${stderr}`);
  return errors;
}

/** Throws with xmllint's words unless every document validates against the schema. */
export async function expectValid(documents: string[], schema: SchemaName): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'billing-xsd-'));
  try {
    const files = documents.map((xml, i) => {
      const file = join(dir, `${i + 1}.xml`);
      writeFileSync(file, xml);
      return file;
    });
    const errors = await schemaErrors(files, schema);
    if (errors.size > 0)
      throw new Error(
        `${errors.size} of ${files.length} files do not validate against ${schema}:\n` +
          [...errors.values()].join('\n').slice(0, 4000),
      );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
