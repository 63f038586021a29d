import type { Command } from 'commander';
import { confirmAction } from '../../lib/command/confirm.js';
import type { Invoke } from '../../lib/command/registry.js';
import { examples, prose } from '../../lib/command/registry.js';
import { accountRuntime, printDryRun, printObject, settingsOf } from './shared.js';

export function configure(cmd: Command, invoke: Invoke): void {
  cmd
    .argument('<name>', 'account name')
    .addHelpText(
      'after',
      prose(
        "Every webhook delivery is signed with the account's secret (the Billing-Signature header). From this command on, deliveries (retries too) are signed with the new one: update the receivers. Asked about on a terminal; needs --yes elsewhere. The API keys stay as they are (see rotate-key).",
      ),
    )
    .addHelpText(
      'after',
      examples(
        'billing accounts rotate-webhook-secret default',
        'billing accounts rotate-webhook-secret acme --yes --json   # {"name": ..., "webhook_secret": "whsec_..."}',
      ),
    )
    .action((name: string, _opts: unknown, command: Command) =>
      invoke(command, async (deps) => {
        if (deps.globals.dryRun)
          return printDryRun(deps, 'rotate-webhook-secret', `replace the webhook signing secret of account ${name}`);
        const { runtime, accounts } = await accountRuntime(deps, 'rotate-webhook-secret', true);
        await confirmAction(
          deps,
          `replace the webhook secret of account ${name}`,
          `Replace the webhook signing secret of account ${name}? Receivers checking signatures with the current secret refuse deliveries from then on.`,
        );
        const account = await accounts.rotateWebhookSecret(runtime, name);
        await printObject(deps, settingsOf(account));
      }),
    );
}
