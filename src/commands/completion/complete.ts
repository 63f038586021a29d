// `billing __complete ids KIND`: what the completion scripts run for ids, never shown in help.
// One line per id, newest first: the id, a tab, what it is. Whatever goes wrong (no store, no
// server, a refusal, the deadline), it prints nothing and ends with 0: a Tab must never print an error.
import type { Command } from 'commander';
import type { Deps } from '../../lib/command/deps.js';
import { UsageError } from '../../lib/cli/errors.js';
import type { Invoke } from '../../lib/command/registry.js';
import { ID_KINDS, idDeadlineMs, listIds, type Candidate } from '../../lib/completion/ids.js';

export interface CompleteOptions {
  what: string;
  kind: string;
}

export async function run(options: CompleteOptions, deps: Deps): Promise<void> {
  if (options.what !== 'ids' || !Object.hasOwn(ID_KINDS, options.kind)) {
    throw new UsageError(`billing __complete takes: ids ${Object.keys(ID_KINDS).join('|')}`);
  }
  const deadlineMs = idDeadlineMs(deps.env);
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<undefined>((resolve) => (timer = setTimeout(resolve, deadlineMs, undefined)));
  const reading = (async (): Promise<Candidate[] | undefined> => {
    // Remote: one attempt, within the deadline (the usual transport retries for half a minute).
    const transport = await deps.transport({ timeoutMs: deadlineMs, retries: 0 });
    return listIds(transport, options.kind);
  })().catch(() => undefined);
  try {
    const found = await Promise.race([reading, expired]);
    if (found?.length) deps.io.out(found.map((c) => `${c.id}\t${c.description}\n`).join(''));
  } finally {
    clearTimeout(timer);
  }
}

export function configure(cmd: Command, invoke: Invoke): void {
  cmd
    .argument('<what>', 'ids')
    .argument('<kind>', Object.keys(ID_KINDS).join(', '))
    .action((what: string, kind: string, _opts: unknown, command: Command) =>
      invoke(command, (deps) => run({ what, kind }, deps)),
    );
}
