import type { Command } from 'commander';
import type { Invoke } from '../../lib/command/registry.js';
import { examples, prose } from '../../lib/command/registry.js';
import { parseId, runWrite } from '../../lib/command/resource.js';
import { DELIVERY } from './index.js';

export function configure(cmd: Command, invoke: Invoke): void {
  cmd
    .argument('<id>', 'webhook delivery id (see billing webhooks list)')
    .addHelpText(
      'after',
      prose(
        'The delivery is due again at once, with the same delivery id (receivers drop duplicates by it) and a new day of retries. The embedded store sends it before the command exits; billing serve sends it within a second.',
      ),
    )
    .addHelpText(
      'after',
      examples(
        'billing webhooks retry 31',
        'billing webhooks list --status failed --json | jq -r ".data[].id" | xargs -n1 billing webhooks retry',
      ),
    )
    .action((idText: string, _opts: unknown, command: Command) =>
      invoke(command, async (deps) => {
        const id = parseId(idText);
        await runWrite(deps, {
          method: 'POST',
          path: `${DELIVERY.path}/${id}/retry`,
          type: DELIVERY.type,
          id,
          done: 'queued again webhook delivery',
        });
      }),
    );
}
