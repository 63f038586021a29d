// Values as a person reads them: money with a euro sign and thousands separators, times with their
// zone, yes/no, labels in words. Light on purpose (no imports): error messages use safeText too.

/**
 * Text from data made safe to print on a terminal: control characters (ESC, BEL, CR, backspace,
 * DEL, the C1 controls 0x80–0x9f) and bidirectional overrides and isolates (U+202A–U+202E,
 * U+2066–U+2069, and the marks U+061C, U+200E, U+200F) become visible escapes such as `\x1b` and
 * `\u202e`. Tab and newline are kept (they cannot move the cursor back or recolour anything); a
 * CRLF line end becomes a newline.
 */
export function safeText(text: string): string {
  if (SAFE.test(text)) return text;
  return text.replace(/\r\n/g, '\n').replace(UNSAFE, escapeChar);
}

// Printable ASCII, tab and newline: nothing to do (the common case, tested first).
const SAFE = /^[\t\n\x20-\x7e]*$/;
// \p{Cc}: the C0 and C1 controls and DEL; [^\P{Cc}\t\n] is one of them but tab or newline.
const UNSAFE = /[^\P{Cc}\t\n]|[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

const escapeChar = (char: string): string => {
  const code = char.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
};

/** safeText on one line: tabs and line breaks become spaces (table cells, TSV fields, messages). */
export const oneLine = (text: string): string => safeText(text).replace(/[\t\n]/g, ' ');

export const MONEY = new Set(['amount', 'amount_excl', 'amount_incl', 'tax_amount']);
const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;
const DATETIME = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(?::\d{2}(?:\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * "€ 1,234.50", "-€ 12.00", "€ 1,000,000.00": on the decimal string itself, never through a
 * float. At least two decimals; more are kept as given. Anything that is not a plain decimal is
 * returned as it is.
 */
export function formatMoney(value: string | number): string {
  const text = String(value);
  const match = DECIMAL.exec(text);
  if (!match) return text;
  const [, sign, whole, fraction = ''] = match;
  const digits = whole.replace(/^0+(?=\d)/, '');
  const grouped = digits.replace(/\B(?=(\d{3})+$)/g, ',');
  return `${sign ? '-' : ''}€ ${grouped}.${fraction.padEnd(2, '0')}`;
}

/**
 * A unit amount times a quantity, as decimal text with the unit's places ("12.10" x 3 is "36.30"):
 * on the digits, never through a float, so the cents are exact. Undefined unless both are numbers
 * (the quantity a whole one).
 */
export function timesQuantity(unit: unknown, quantity: unknown): string | undefined {
  const count = typeof quantity === 'string' && /^-?\d+$/.test(quantity) ? Number(quantity) : quantity;
  if (!isNumeric(unit) || typeof count !== 'number' || !Number.isSafeInteger(count)) return undefined;
  const [, sign, whole, fraction = ''] = DECIMAL.exec(String(unit))!;
  const product = BigInt(whole + fraction) * BigInt(count) * (sign ? -1n : 1n);
  const digits = (product < 0n ? -product : product).toString().padStart(fraction.length + 1, '0');
  const point = digits.length - fraction.length;
  return `${product < 0n ? '-' : ''}${digits.slice(0, point)}${fraction ? `.${digits.slice(point)}` : ''}`;
}

const isNumeric = (value: unknown): value is string | number =>
  typeof value === 'number' ? Number.isFinite(value) : typeof value === 'string' && DECIMAL.test(value);

export const isMoney = (name: string, value: unknown): boolean => MONEY.has(name) && isNumeric(value);

/** Rates in percent, shown as "21.00%" (the service sends "21.00"). */
const PERCENT = new Set(['tax_rate', 'rate']);

/**
 * "2026-12-01 14:03 +01:00" from "2026-12-01T14:03:00+01:00": the offset the service gave (the
 * account's zone) is kept; no conversion, no Intl. Undefined when the value is not such a datetime.
 */
export function formatDateTime(value: string): string | undefined {
  const match = DATETIME.exec(value);
  if (!match) return undefined;
  const offset = match[3] === 'Z' ? '+00:00' : match[3];
  return `${match[1]} ${match[2]} ${offset}`;
}

/**
 * Attributes that hold a day: the service writes each as the first instant of that day in the
 * account's zone, and a person reads "2026-12-01", not "2026-12-01 00:00 +01:00".
 */
const DAYS = new Set([
  'start_date',
  'due_date',
  'invoice_date',
  'transaction_date',
  'resume_date',
  'refunded_on',
  'due_until',
  'collection_date',
  'new_due_date',
]);
/** A day, or the moment it happened (cancelled at once, a mandate accepted on its page): a day when at 00:00. */
const DAYS_OR_TIMES = new Set(['cancel_date', 'mandate_accepted_date']);
const MIDNIGHT = /^\d{4}-\d{2}-\d{2}T00:00(?::00(?:\.0+)?)?(?:Z|[+-]\d{2}:\d{2})$/;

const isDay = (name: string, value: string): boolean =>
  DAYS.has(name) || (DAYS_OR_TIMES.has(name) && MIDNIGHT.test(value));

/** A value as a person reads it; '' for nothing (null, undefined, ''). Not yet made safe: see safeText. */
export function formatValue(name: string, value: unknown): string {
  if (value === null || value === undefined || value === '') return '';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (isMoney(name, value)) return formatMoney(value as string | number);
  if (PERCENT.has(name) && isNumeric(value)) return `${String(value)}%`;
  if (typeof value === 'string') {
    const shown = formatDateTime(value);
    return shown === undefined ? value : isDay(name, value) ? shown.slice(0, 10) : shown;
  }
  // A list of objects (a transaction's history): one entry per line in the single view.
  if (Array.isArray(value)) {
    const sentence = Object.hasOwn(ITEMS, name) ? ITEMS[name] : undefined;
    const items = value
      .map((entry) =>
        sentence && entry !== null && typeof entry === 'object'
          ? sentence(entry as Record<string, unknown>)
          : formatValue(name, entry),
      )
      .filter(Boolean);
    return value.some((item) => item !== null && typeof item === 'object') ? items.join(';\n') : items.join(', ');
  }
  if (typeof value === 'object') {
    // Any other object: "key: value" pairs, money and rates inside formatted too.
    return Object.entries(value as Record<string, unknown>)
      .map(([key, item]) => [key, formatValue(key, item)])
      .filter(([, shown]) => shown !== '')
      .map(([key, shown]) => `${label(key)}: ${shown}`)
      .join(', ');
  }
  // What is left: a number or a bigint.
  return (value as number | bigint).toString();
}

/** "2026-12-01" from a datetime, for narrow list columns. */
export const formatDate = (value: unknown): string =>
  typeof value === 'string' && DATETIME.test(value) ? value.slice(0, 10) : formatValue('', value);

/**
 * Items of a list attribute that read better as a sentence than as "key: value" pairs. A
 * transaction's history: "2026-12-01 07:00 +01:00 charged_back AM04 Insufficient funds", and a
 * retry "… rescheduled → 2026-12-04" (attempts after the first say so).
 */
const ITEMS: Record<string, (item: Record<string, unknown>) => string> = {
  history: (item) => {
    const text = (key: string) => formatValue(key, item[key]);
    const attempt = typeof item.attempt === 'number' && item.attempt > 1 ? `(attempt ${item.attempt})` : '';
    const due = text('new_due_date') ? `→ ${formatDate(item.new_due_date)}` : '';
    return [text('recorded_on'), text('status'), text('reason_code'), text('reason'), due, attempt]
      .filter(Boolean)
      .join(' ');
  },
  // An invoice's tax per rate: "21.00%: € 2.10".
  tax_rates: (item) => [formatValue('rate', item.rate), formatValue('amount', item.amount)].filter(Boolean).join(': '),
};

const LABELS: Record<string, string> = {
  iban: 'IBAN',
  vat_number: 'VAT number',
  country_iso2: 'country',
  postalcode: 'postal code',
  house_number_add: 'house number addition',
  created_at: 'created',
  updated_at: 'updated',
  api_key: 'API key',
  api_keys: 'API keys',
  base_url: 'base URL',
  mandate_authentication_method: 'mandate method',
  'subscription-plan': 'plan',
  hosted_invoice_url: 'invoice page',
  creditor_id: 'creditor id',
  creditor_iban: 'creditor IBAN',
  creditor_bic: 'creditor BIC',
  message_id: 'MsgId',
};

/** An attribute or relationship name as a person reads it: "first name", not first_name. */
export const label = (name: string): string => LABELS[name] ?? name.replace(/[_-]/g, ' ');
