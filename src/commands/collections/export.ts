// export ID [--format F] [--out FILE]: GET /collections/{id}/file, written as it comes: to stdout, or
// to FILE through a temporary file beside it, renamed at the end (a failed export leaves no half file).
import type { Command } from 'commander';
import { randomBytes } from 'node:crypto';
import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Deps } from '../../lib/command/deps.js';
import { UsageError } from '../../lib/cli/errors.js';
import { textOf } from '../../lib/schemas/json.js';
import { ProtocolError } from '../../lib/transport/types.js';
import type { Invoke } from '../../lib/command/registry.js';
import { examples, prose, refusesDryRun } from '../../lib/command/registry.js';
import { parseId, send } from '../../lib/command/resource.js';
import { choiceFlag } from '../subscriptions/find.js';
import { COLLECTION } from './index.js';

export const FORMATS = ['pain.008.001.02', 'pain.008.001.08'] as const;

type Pipe = (write: (chunk: string) => void | Promise<void>) => Promise<void>;

/**
 * A file at `path`, written through a temporary file in the same folder and renamed over it when
 * whole. Opened before the export is asked for: a place that cannot be written fails the command
 * before the batch is marked exported.
 */
async function fileAt(path: string): Promise<{ fill: (pipe: Pipe) => Promise<void>; abort: () => Promise<void> }> {
  const temporary = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.part`);
  let handle: FileHandle | undefined;
  try {
    handle = await open(temporary, 'wx');
  } catch (error) {
    throw new UsageError(`--out ${path}: cannot write there (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const abort = async () => {
    await handle?.close().catch(() => {});
    handle = undefined;
    await rm(temporary, { force: true });
  };
  const fill = async (pipe: Pipe) => {
    try {
      const file = handle!;
      await pipe(async (chunk) => void (await file.write(chunk)));
      await file.sync();
      await file.close();
      handle = undefined;
      await rename(temporary, path);
    } catch (error) {
      await abort();
      throw error;
    }
  };
  return { fill, abort };
}

export async function run(idText: string, opts: Record<string, unknown>, deps: Deps): Promise<void> {
  const id = parseId(idText);
  const format = opts.format === undefined ? undefined : choiceFlag(opts.format, '--format', FORMATS);
  const out = opts.out === undefined ? undefined : textOf(opts.out);
  if (out === '') throw new UsageError('--out needs a file name');
  const file = out === undefined ? undefined : await fileAt(out);
  let pipe: Pipe | undefined;
  try {
    const response = await send(deps, {
      method: 'GET',
      path: `${COLLECTION.path}/${id}/file`,
      query: { format },
      file: true,
    });
    pipe = response.pipe;
    if (!pipe) throw new ProtocolError(`the service answered the file of collection ${id} with a document, not XML`);
  } catch (error) {
    await file?.abort();
    throw error;
  }
  if (file === undefined) {
    const { io } = deps;
    await pipe((chunk) => (io.write ? io.write(chunk) : io.out(chunk)));
    return;
  }
  await file.fill(pipe);
  if (!deps.globals.quiet) deps.io.err(`exported collection ${id} to ${out}\n`);
}

export function configure(cmd: Command, invoke: Invoke): void {
  refusesDryRun(cmd, 'exporting marks the batch exported; billing collections get ID shows it without changing it')
    .argument('<id>', 'collection batch id')
    .option('--format <format>', `${FORMATS.join(' or ')} (default ${FORMATS[0]}, which every SEPA bank takes)`)
    .option('--out <file>', 'write the file here (whole or not at all) instead of to standard output')
    .addHelpText(
      'after',
      prose(
        "The first export marks the batch exported (it can no longer be cancelled) and freezes the creditor settings into it; every export after gives the same bytes. A SEPA account needs its creditor id, name and IBAN to export (billing accounts update NAME). Upload the file to your bank (online banking or your bank's upload channel), then import the bank's reports: billing collections import FILE.",
      ),
    )
    .addHelpText(
      'after',
      examples(
        'billing collections export 3 --out batch-3.xml',
        'billing collections export 3 --format pain.008.001.08 > batch-3.xml',
      ),
    )
    .action((idText: string, opts: Record<string, unknown>, command: Command) =>
      invoke(command, (deps) => run(idText, opts, deps)),
    );
}
