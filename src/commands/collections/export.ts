// export ID [--format F] [--out FILE]: GET /collections/{id}/file, written as it comes: to stdout, or
// to FILE through a temporary file beside it, renamed at the end (a failed export leaves no half file);
// a link is followed to its file, a FIFO or device is written straight into.
import type { Command } from 'commander';
import { randomBytes } from 'node:crypto';
import { open, readlink, realpath, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
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

/** Where a link at `path` leads, followed to the end (for a dangling link, the file it names); else `path`. */
async function linkedFile(path: string): Promise<string> {
  const link = await readlink(path).catch(() => undefined);
  if (link === undefined) return path;
  try {
    return await realpath(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    return linkedFile(resolve(dirname(path), link));
  }
}

/**
 * A file at `path`, written through a temporary file in the same folder and renamed over it when
 * whole. For a link, its file: a rename over the link would replace it and leave its file as it was.
 * Opened before the export is asked for: a place that cannot be written fails the command before the
 * batch is marked exported.
 */
async function fileAt(path: string): Promise<{ fill: (pipe: Pipe) => Promise<void>; abort: () => Promise<void> }> {
  let handle: FileHandle | undefined;
  let target = path;
  let temporary: string | undefined;
  try {
    const found = await stat(path).catch(() => undefined);
    if (found?.isDirectory()) throw new UsageError(`--out ${path} is a folder: name the file to write`);
    if (found && !found.isFile()) {
      // A FIFO, a device or a socket: a file renamed over it would take its place and its reader would get
      // nothing. Written straight into, so there is no whole or nothing: a failed export may leave part of the file.
      handle = await open(path, 'w');
    } else {
      target = await linkedFile(path);
      temporary = join(dirname(target), `.${basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.part`);
      handle = await open(temporary, 'wx');
    }
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`--out ${path}: cannot write there (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const abort = async () => {
    await handle?.close().catch(() => {});
    handle = undefined;
    if (temporary !== undefined) await rm(temporary, { force: true });
  };
  const fill = async (pipe: Pipe) => {
    try {
      const file = handle!;
      await pipe(async (chunk) => void (await file.write(chunk)));
      // A FIFO or a device has nothing to sync (fsync fails there).
      if (temporary !== undefined) await file.sync();
      await file.close();
      handle = undefined;
      if (temporary !== undefined) await rename(temporary, target);
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
        "The first export marks the batch exported (it can no longer be cancelled) and freezes the creditor settings into it; every export after gives the same bytes. A SEPA account needs its creditor id, name and IBAN to export (billing accounts update NAME). Upload the file to your bank (online banking or your bank's upload channel), then import the bank's reports: billing collections import FILE. With --out, a link is followed to its file, and a FIFO or a device is written straight into (as the file comes, not whole or not at all).",
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
