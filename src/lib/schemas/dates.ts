// Dates as the API takes them, checked alike by the schemas, the core and the CLI's flags. Kept
// free of zod: the CLI's date flags and the core's read path use it.
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DATETIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;

/** Whether text is a real calendar date, or a datetime with an offset (the zone comes from the account later). */
export function isDateInput(text: string): boolean {
  if (DATE_ONLY.test(text)) {
    const [y, m, d] = text.split('-').map(Number);
    return m >= 1 && m <= 12 && d >= 1 && d <= new Date(Date.UTC(y, m, 0)).getUTCDate();
  }
  return DATETIME.test(text) && !Number.isNaN(Date.parse(text.replace(' ', 'T')));
}

export const DATE_MESSAGE = 'must be a date (2026-12-01) or a datetime with an offset (2026-12-01T09:00:00+01:00)';
