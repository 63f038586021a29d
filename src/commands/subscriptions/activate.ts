// activate ID [--mandate-accepted-date D]: status active, and with the date the mandate's acceptance,
// in the same request (the service activates only a subscription whose mandate is accepted).
import type { Command } from 'commander';
import { ApiError } from '../../lib/cli/errors.js';
import type { Invoke } from '../../lib/command/registry.js';
import { examples, prose } from '../../lib/command/registry.js';
import { parseId } from '../../lib/command/resource.js';
import { dateFlag, patchSubscription } from './shortcuts.js';

interface ErrorDocument {
  errors?: { title?: string; detail?: string }[];
}

/** Whether the service refused because the mandate is not accepted (400 Invalid State about the mandate). */
export function refusedForMandate(error: unknown): boolean {
  if (!(error instanceof ApiError) || error.status !== 400) return false;
  const errors = (error.document as ErrorDocument | undefined)?.errors ?? [];
  return errors.some((e) => e.title === 'Invalid State' && /mandate/i.test(e.detail ?? ''));
}

export function configure(cmd: Command, invoke: Invoke): void {
  cmd
    .argument('<id>', 'subscription id')
    .option(
      '--mandate-accepted-date <date>',
      'the day the customer accepted the mandate; sends mandate_accepted with it, in the same request',
    )
    .addHelpText(
      'after',
      prose(
        "The service activates a subscription only when its mandate is accepted: by the customer on the confirmation page, or by you with --mandate-accepted-date. Activating schedules the plan's transactions.",
      ),
    )
    .addHelpText(
      'after',
      examples(
        'billing subscriptions activate 7 --mandate-accepted-date 2026-12-01',
        'billing subscriptions activate 7   # the customer accepted the mandate already',
      ),
    )
    .action((idText: string, opts: Record<string, unknown>, command: Command) =>
      invoke(command, async (deps) => {
        const id = parseId(idText);
        const date = dateFlag(opts.mandateAcceptedDate, '--mandate-accepted-date');
        const attributes =
          date === undefined
            ? { status: 'active' }
            : { status: 'active', mandate_accepted: true, mandate_accepted_date: date };
        try {
          await patchSubscription(deps, id, attributes, 'activated');
        } catch (error) {
          if (date === undefined && refusedForMandate(error)) {
            Object.assign(error as ApiError, {
              hint: `accept the mandate in the same request: billing subscriptions activate ${id} --mandate-accepted-date YYYY-MM-DD (the day the customer accepted it)`,
            });
          }
          throw error;
        }
      }),
    );
}
