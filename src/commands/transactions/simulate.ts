// simulate ID --outcome charged_back|failed [--reason-code CODE]: the embedded store collects by
// simulation (every due transaction succeeds); an operator sets another outcome here, before the due
// date or after it. Not an API call: it is a named operation of the runtime, and prints the transaction as GET shows it.
import type { Command } from 'commander';
import { embeddedOnly, type Deps } from '../../lib/command/deps.js';
import { UsageError } from '../../lib/cli/errors.js';
import type { Invoke } from '../../lib/command/registry.js';
import { examples, prose } from '../../lib/command/registry.js';
import { runGet } from '../../lib/command/resource.js';
import { DEFAULT_REASON, REASON_CODES } from '../../lib/schemas/sepa.js';
import { OUTCOMES, type Outcome } from '../../lib/schemas/vocabulary.js';
import { choiceFlag } from '../subscriptions/find.js';
import { resolveTransactionId } from './ids.js';
import { TRANSACTION } from './index.js';
import { textOf } from '../../lib/schemas/json.js';

/** The codes a refusal names as examples. */
const SOME_CODES = ['AM04', 'MD06', 'AC04', 'MS02', 'MD01'];

export function reasonCodeFlag(value: unknown, outcome: Outcome): string {
  if (value === undefined) return DEFAULT_REASON[outcome];
  const code = textOf(value).trim().toUpperCase();
  if (!REASON_CODES.has(code)) {
    const some = SOME_CODES.map((c) => `${c} (${REASON_CODES.get(c)})`).join(', ');
    throw new UsageError(
      `--reason-code: must be a SEPA reason code, such as ${some}; not "${textOf(value)}" (see billing transactions simulate --help)`,
    );
  }
  return code;
}

export async function run(idText: string, opts: Record<string, unknown>, deps: Deps): Promise<void> {
  if (deps.settings.mode === 'remote') throw embeddedOnly('transactions simulate', deps.settings.baseUrl);
  if (opts.outcome === undefined) throw new UsageError(`missing required flag: --outcome (${OUTCOMES.join(' or ')})`);
  const outcome = choiceFlag(opts.outcome, '--outcome', OUTCOMES) as Outcome;
  const reasonCode = reasonCodeFlag(opts.reasonCode, outcome);
  // Flags first: a usage error is said before the store is read to find the id.
  const id = await resolveTransactionId(deps, idText);
  if (deps.globals.dryRun) {
    deps.io.out(
      `${JSON.stringify({ simulate: TRANSACTION.type, id, outcome, reason_code: reasonCode, reason: REASON_CODES.get(reasonCode) }, null, 2)}\n`,
    );
    return;
  }
  const runtime = await deps.runtime('transactions simulate', { write: true });
  const { simulateOutcome } = await import('../../lib/runtime/dashboard.js');
  await simulateOutcome(runtime, id, outcome, reasonCode);
  if (!deps.globals.quiet)
    deps.io.err(`transaction ${id}: ${outcome.replace('_', ' ')} (${reasonCode} ${REASON_CODES.get(reasonCode)})\n`);
  await runGet(deps, `${TRANSACTION.path}/${id}`, { fields: {} });
}

export function configure(cmd: Command, invoke: Invoke): void {
  const codes = [...REASON_CODES].map(([code, text]) => `${code} ${text}`).join('; ');
  cmd
    .argument('<id>', 'transaction id: a UUID, or its first 8 hex digits or more')
    .option('--outcome <outcome>', `what happens to the collection: ${OUTCOMES.join(' or ')} (required)`)
    .option(
      '--reason-code <code>',
      `SEPA reason code (default: ${DEFAULT_REASON.charged_back} when charged back, ${DEFAULT_REASON.failed} when failed)`,
    )
    .addHelpText(
      'after',
      prose(
        `The embedded store collects by simulation: every due transaction succeeds and is fulfilled, unless an outcome is set here, before its due date or after it. A returned transaction is retried as often as the plan's storno retries say, then ends failed. Embedded store only. Reason codes: ${codes}.`,
      ),
    )
    .addHelpText(
      'after',
      examples(
        'billing transactions simulate ffa38848-6abc-4d22-b6b0-63fe1780969c --outcome charged_back',
        'billing transactions simulate ffa38848-6abc-4d22-b6b0-63fe1780969c --outcome failed --reason-code AC04',
      ),
    )
    .action((idText: string, opts: Record<string, unknown>, command: Command) =>
      invoke(command, (deps) => run(idText, opts, deps)),
    );
}
