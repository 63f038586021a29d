// Values as a person reads them: money with a euro sign, dates without seconds, yes/no.
const MONEY = new Set(['amount', 'amount_excl', 'amount_incl', 'tax_amount']);
const DATETIME = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}):\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/;

export function formatMoney(value: string | number): string {
  const text = typeof value === 'number' ? value.toFixed(2) : value;
  return text.startsWith('-') ? `-€ ${text.slice(1)}` : `€ ${text}`;
}

export function formatValue(name: string, value: unknown): string {
  if (value === null || value === undefined || value === '') return '';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (MONEY.has(name) && (typeof value === 'number' || /^-?\d+(\.\d+)?$/.test(String(value)))) return formatMoney(value as string | number);
  if (typeof value === 'string') {
    const match = DATETIME.exec(value);
    return match ? `${match[1]} ${match[2]}` : value;
  }
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** "2026-12-01" from a datetime, for narrow list columns. */
export const formatDate = (value: unknown): string => (typeof value === 'string' && DATETIME.test(value) ? value.slice(0, 10) : formatValue('', value));
