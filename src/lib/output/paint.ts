// Colour for tables on a terminal. Loaded only when colour is on: chalk is not on any other path.
import { Chalk } from 'chalk';

export type Colour = 'green' | 'yellow' | 'red' | 'gray';

/**
 * What a state means, as a colour: green for in effect or settled, yellow for waiting on something
 * or someone, red for gone wrong, gray for over or not (yet) in use. Values of every resource share
 * one mapping: subscriptions, plans, invoices, transactions, and a customer's "archived".
 */
export const STATE_COLOURS: Record<string, Colour> = {
  active: 'green',
  paid: 'green',
  completed: 'green',
  succeeded: 'green',
  fulfilled: 'green',
  unverified: 'yellow',
  paused: 'yellow',
  open: 'yellow',
  queued: 'yellow',
  scheduled: 'yellow',
  rescheduled: 'yellow',
  charged_back: 'red',
  failed: 'red',
  draft: 'gray',
  inactive: 'gray',
  cancelled: 'gray',
  canceled: 'gray',
  archived: 'gray',
};

export interface Painter {
  header(text: string): string;
  border(text: string): string;
  /** The text coloured by what `value` (the state itself, before padding) means; as it is for unknown values. */
  state(value: string, text: string): string;
}

export function painter(): Painter {
  // Whether to colour is decided before (globals.color), so chalk's own detection is not asked.
  const chalk = new Chalk({ level: 1 });
  return {
    header: (text) => chalk.cyan(text),
    border: (text) => chalk.gray(text),
    state: (value, text) => {
      const colour = Object.hasOwn(STATE_COLOURS, value) ? STATE_COLOURS[value] : undefined;
      return colour ? chalk[colour](text) : text;
    },
  };
}
