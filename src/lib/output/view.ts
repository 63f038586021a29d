// How output for people is shown: on a terminal (fitted to its width, maybe coloured) or not
// (plain tab-separated lines). Times need nothing here: the service writes them in the account's
// time zone with its offset, and they are shown so, the same in embedded and remote mode.
import type { GlobalOptions } from '../cli/globals.js';
import type { IO } from '../cli/io.js';

export interface View {
  /** Colour (decided in globals.color: off with --no-color, NO_COLOR, or stdout not a terminal without FORCE_COLOR). */
  color: boolean;
  /** Whether stdout is a terminal: tables with borders fitted to `columns`; otherwise tab-separated lines. */
  tty: boolean;
  /** The terminal's width; 80 when a terminal does not say. */
  columns?: number;
}

export const DEFAULT_COLUMNS = 80;

/** The width to fit: the terminal's, or 80 when it does not say. */
export const terminalWidth = (view: View): number =>
  view.columns !== undefined && view.columns > 0 ? view.columns : DEFAULT_COLUMNS;

export function viewOf(globals: Pick<GlobalOptions, 'color'>, io: Pick<IO, 'stdoutIsTTY' | 'columns'>): View {
  return { color: globals.color, tty: io.stdoutIsTTY, columns: io.columns };
}
