import type { Command } from 'commander';
import type { Invoke } from '../../lib/command/registry.js';
import { examples, prose } from '../../lib/command/registry.js';
import { subject, withFacts } from '../../lib/command/confirm.js';
import { lineTotal } from '../../lib/output/columns.js';
import { oneLine } from '../../lib/output/format.js';
import { truncate } from '../../lib/output/text.js';
import { textOf } from '../../lib/schemas/json.js';
import { configureDelete } from '../invoices/confirmed.js';
import { LINE } from './index.js';

export function configure(cmd: Command, invoke: Invoke): void {
  configureDelete(cmd, LINE, invoke, async (deps, id) => {
    const { data } = await subject(deps, `${LINE.path}/${id}`);
    const description = truncate(oneLine(textOf(data.attributes?.description ?? '')), 40);
    return `Delete ${withFacts(`invoice line ${id}`, description, lineTotal(data))}? This cannot be undone.`;
  })
    .addHelpText(
      'after',
      prose(
        'Only a line of a draft invoice can be deleted. Asks for confirmation on a terminal; needs --yes without one.',
      ),
    )
    .addHelpText('after', examples('billing lines delete 31', 'billing lines delete 31 --yes'));
}
