import type { Command } from 'commander';
import type { Invoke } from '../../lib/command/registry.js';
import { examples, prose } from '../../lib/command/registry.js';
import { parseId } from '../../lib/command/resource.js';
import { dateFlag, patchSubscription } from './shortcuts.js';

export function configure(cmd: Command, invoke: Invoke): void {
  cmd
    .argument('<id>', 'subscription id')
    .option(
      '--resume-date <date>',
      'resume on this day (in the future); without it, until `billing subscriptions resume`',
    )
    .addHelpText(
      'after',
      prose(
        "Pausing cancels every transaction not yet collected, manual ones included; resuming schedules the plan's next one.",
      ),
    )
    .addHelpText(
      'after',
      examples('billing subscriptions pause 7', 'billing subscriptions pause 7 --resume-date 2027-03-01'),
    )
    .action((idText: string, opts: Record<string, unknown>, command: Command) =>
      invoke(command, async (deps) => {
        const id = parseId(idText);
        const resume = dateFlag(opts.resumeDate, '--resume-date');
        await patchSubscription(
          deps,
          id,
          resume === undefined ? { status: 'paused' } : { status: 'paused', resume_date: resume },
          'paused',
        );
      }),
    );
}
