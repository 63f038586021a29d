// Row types of the store, as Kysely sees them. Times are ISO 8601 UTC strings; money is integer cents.
import type { Generated } from 'kysely';

export interface AccountRow {
  id: Generated<number>;
  name: string;
  invoice_prefix: string;
  time_zone: string;
  webhook_secret: string;
  is_default: number;
  next_invoice_number: number;
  created_at: string;
  updated_at: string;
  /** 'simulated' (every due transaction succeeds unless an operator says otherwise) or 'sepa' (the bank's reports decide). */
  collection: Generated<string>;
  /** The SEPA creditor settings: identifier, name, IBAN and BIC; null until given. */
  creditor_id: string | null;
  creditor_name: string | null;
  creditor_iban: string | null;
  creditor_bic: string | null;
  /** The least number of days between a collection's pre-notification and its collection (sepa). */
  prenotification_days: Generated<number>;
}

export interface ApiKeyRow {
  id: Generated<number>;
  account_id: number;
  key_hash: string;
  created_at: string;
}

export interface CustomerRow {
  id: Generated<number>;
  account_id: number;
  gender: string | null;
  first_name: string;
  middle_name: string | null;
  last_name: string;
  company_name: string | null;
  vat_number: string | null;
  bank_holder: string | null;
  iban: string | null;
  payment_method: string;
  bank_verification_method: string | null;
  card_holder: string | null;
  card_number: string | null;
  postalcode: string | null;
  house_number: string | null;
  house_number_add: string | null;
  street: string | null;
  city: string | null;
  country_iso2: string | null;
  language: string;
  email: string;
  telephone: string | null;
  /** Written with the row by the core (store/search-text.ts): what filter[search] finds the customer by. */
  search_text: string;
  archived: number;
  created_at: string;
  updated_at: string;
}

export interface PlanRow {
  id: Generated<number>;
  account_id: number;
  name: string;
  description: string | null;
  start_date: string;
  status: string;
  mandate_authentication_method: string;
  send_invoice: number;
  storno_retries: number;
  terms: string | null;
  archived: number;
  amount_cents: number;
  frequency: string;
  created_at: string;
  updated_at: string;
}

export interface SubscriptionRow {
  id: Generated<number>;
  account_id: number;
  customer_id: number;
  subscription_plan_id: number;
  mandate_code: string;
  mandate_accepted: number;
  mandate_accepted_date: string | null;
  start_date: string;
  status: string;
  cancel_date: string | null;
  resume_date: string | null;
  confirmation_sent: number;
  subscription_webhook_url: string | null;
  transaction_webhook_url: string | null;
  success_redirect_url: string | null;
  metadata: string | null;
  archived: number;
  created_at: string;
  updated_at: string;
  /** The local day (YYYY-MM-DD) plan cycles count from; null until first activated. */
  cycle_anchor: string | null;
  /** The plan cycle the next plan transaction collects (0 is the first). */
  next_cycle: number;
  /** The secret that ends the URL of the mandate page (confirmation_page): 64 hex digits, never shown otherwise. */
  confirmation_token: string;
  /** A reason code the bank gave that no retry cures (AC04, MD01...): the mandate needs attention; null when it does not. */
  mandate_attention: string | null;
  /** When it was flagged (an instant). */
  mandate_attention_on: string | null;
}

export interface TransactionRow {
  seq: Generated<number>;
  id: string;
  account_id: number;
  subscription_id: number;
  /** 'plan' (scheduled by the plan) or 'manual' (POST /transactions). */
  origin: string;
  cycle: number | null;
  status: string;
  scheduled_on: string | null;
  due_date: string;
  amount_cents: number;
  canceled_on: string | null;
  webhook_url: string | null;
  payment_method: string;
  description: string | null;
  attempt: number;
  /** JSON array of history items, instants in UTC. */
  history: string;
  /** An outcome an operator set before collection (charged_back or failed) and its reason code. */
  outcome: string | null;
  outcome_code: string | null;
  created_at: string;
  updated_at: string;
  /** The invoice this transaction collects (origin 'invoice'). */
  invoice_id: number | null;
  /** The last SEPA reason code of its history (what filter[reason_code] finds); null when it has none. */
  reason_code: string | null;
}

/** A collection batch: what one pain.008 file says, frozen when it is made (the creditor at its first export). */
export interface CollectionRow {
  id: Generated<number>;
  account_id: number;
  /** open (made), exported (its file given out), cancelled (before export; its transactions free again). */
  status: string;
  /** The file's MsgId. */
  message_id: string;
  /** The day (YYYY-MM-DD) the batch took transactions due by. */
  due_until: string;
  transaction_count: number;
  control_sum_cents: number;
  creditor_id: string | null;
  creditor_name: string | null;
  creditor_iban: string | null;
  creditor_bic: string | null;
  exported_at: string | null;
  cancelled_at: string | null;
  created_at: string;
  updated_at: string;
}

/** One presentation of a transaction in a batch: the debit exactly as the file writes it, and what the bank said of it. */
export interface CollectionItemRow {
  id: Generated<number>;
  account_id: number;
  collection_id: number;
  transaction_id: string;
  /** The transaction's row number (seq): with attempt, the key of the one live item per attempt. */
  transaction_seq: number;
  subscription_id: number;
  attempt: number;
  /** pending (in the file, no word from the bank), booked, rejected (before settlement), returned (after it), cancelled (the batch was). */
  state: string;
  end_to_end_id: string;
  sequence_type: string;
  /** ReqdColltnDt, YYYY-MM-DD. */
  collection_date: string;
  amount_cents: number;
  mandate_id: string;
  mandate_signed_on: string;
  debtor_name: string;
  debtor_iban: string;
  remittance: string | null;
  /** The amendment since the mandate's last collection: its mandate id or IBAN then; SMNDA when the debtor's bank changed. */
  original_mandate_id: string | null;
  original_debtor_iban: string | null;
  original_debtor_agent: string | null;
  /** The bank's reason code of a reject or a return. */
  reason_code: string | null;
  settled_at: string | null;
  /** When its batch was cancelled (before its export); null in every batch that was not. */
  cancelled_at: string | null;
  created_at: string;
  updated_at: string;
}

/** A bank report applied (camt.054, camt.053, pain.002), kept by its content hash, with what it came to. */
export interface BankReportRow {
  id: Generated<number>;
  account_id: number;
  format: string;
  message_id: string;
  content_hash: string;
  entries: number;
  booked: number;
  rejected: number;
  returned: number;
  /** Entries matched to a collection the report changed nothing of (already settled so). */
  unchanged: number;
  unmatched: number;
  /** JSON: the entries that matched no collection, with why. */
  unmatched_entries: string;
  created_at: string;
}

export interface InvoiceRow {
  id: Generated<number>;
  account_id: number;
  subscription_id: number;
  customer_id: number;
  status: string;
  /** The n of the reference, from the account's counter on finalising; null while draft. */
  number: number | null;
  /** `<invoice_prefix><n>` as it was when finalised; null while draft (shown as DRAFT). */
  reference: string | null;
  amount_excl_cents: number;
  tax_amount_cents: number;
  /** JSON [[rate in hundredths of a percent, tax cents], ...], highest rate first. */
  tax_rates: string;
  invoice_date: string | null;
  transaction_date: string | null;
  original_invoice_id: number | null;
  send_email: number;
  transaction_id: string | null;
  /** The secret part of hosted_invoice_url, made on finalising. */
  hosted_token: string | null;
  finalised_at: string | null;
  /** A credit invoice owed to the customer: when the money went back (billing invoices refunded). */
  refunded_on: string | null;
  created_at: string;
  updated_at: string;
}

export interface InvoiceLineRow {
  id: Generated<number>;
  account_id: number;
  invoice_id: number;
  description: string;
  /** The unit amount as given (including tax when tax_included). */
  amount_cents: number;
  /** Hundredths of a percent: 21.00% is 2100. */
  tax_rate: number;
  tax_included: number;
  quantity: number;
  unit_excl_cents: number;
  unit_tax_cents: number;
  /** On a credit invoice made by credit: the original invoice's line it credits. */
  credited_line_id: number | null;
  created_at: string;
  updated_at: string;
}

export interface DueWorkRow {
  id: Generated<number>;
  account_id: number;
  due_at: string;
  /** Of work due at the same instant, lower ranks run first (a cancel before a collection). */
  rank: number;
  kind: string;
  subject: string;
}

export interface EventRow {
  id: Generated<number>;
  account_id: number;
  name: string;
  subscription_id: number;
  transaction_id: string | null;
  status: string;
  occurred_at: string;
  /** Names the event in its deliveries; null for events written before deliveries existed. */
  uid: string | null;
  /** The status the change left; null for a first status (a subscription made, a transaction queued). */
  from_status: string | null;
  /** A transaction's return or failure: its SEPA reason code. */
  reason_code: string | null;
  /** A transaction's amount. */
  amount_cents: number | null;
}

/** One event's delivery to one URL (the outbox): pending until delivered, or failed after a day of retries. */
export interface WebhookDeliveryRow {
  id: Generated<number>;
  account_id: number;
  event_uid: string;
  /** Sent with every attempt, so a receiver can drop a duplicate. */
  delivery_id: string;
  /** The header's event name, e.g. `transaction.charged_back`. */
  event: string;
  url: string;
  body: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  /** When the next attempt is due, by the store's clock. */
  next_at: string;
  claimed_by: string | null;
  /** Until when a sender holds the row, by real time. */
  claimed_until: string | null;
  last_status: number | null;
  last_error: string | null;
  delivered_at: string | null;
  created_at: string;
  updated_at: string;
  /** The receiver it counts against: host:port of the URL as written (see hostKey). */
  host: string;
  /** Whether whoever wrote the row allowed loopback and private targets (1); 0: every sender refuses them. */
  allow_private: number;
}

/** A receiver that timed out: every sender holds its deliveries back until retry_at (real time). */
export interface WebhookHostRow {
  host: string;
  /** Timeouts in a row; each doubles the wait. */
  timeouts: number;
  retry_at: string;
}

export interface NotificationRow {
  id: Generated<number>;
  account_id: number;
  customer_id: number;
  subscription_id: number;
  kind: string;
  channel: string;
  language: string;
  recipient: string | null;
  subject: string;
  body: string;
  created_at: string;
  sent_at: string | null;
  send_attempts: number;
  send_error: string | null;
  /** When to try sending it by email next; null when there is nothing (more) to send. */
  next_send_at: string | null;
  /** Until when a sender holds it, by real time. */
  claimed_until: string | null;
}

export interface StoreClockRow {
  id: number;
  test_time: string;
}

export interface ImportRow {
  id: Generated<number>;
  account_id: number;
  kind: string;
  content_hash: string;
  position: number;
  line: number;
  imported: number;
  rejected: number;
  rejects_bytes: number;
  done: number;
  created_at: string;
  updated_at: string;
}

export interface IdempotencyKeyRow {
  id: Generated<number>;
  account_id: number;
  key: string;
  request_hash: string;
  /** The first answer; null while its request is still being answered. */
  status: number | null;
  headers: string | null;
  body: string | null;
  created_at: string;
  /** What each committed write of its request gave back, as a JSON array in order (null on keys older than this column). */
  writes: string | null;
}

/** A plan's amount and frequency until they were changed (kept by a trigger on subscription_plans). */
export interface PlanPriceRow {
  id: Generated<number>;
  account_id: number;
  subscription_plan_id: number;
  amount_cents: number;
  frequency: string;
  /** The instant of the change (the plan's updated_at): the plan had this amount before it. */
  until: string;
}

export interface DB {
  accounts: AccountRow;
  api_keys: ApiKeyRow;
  customers: CustomerRow;
  subscription_plans: PlanRow;
  subscriptions: SubscriptionRow;
  transactions: TransactionRow;
  invoices: InvoiceRow;
  invoice_lines: InvoiceLineRow;
  due_work: DueWorkRow;
  events: EventRow;
  webhook_deliveries: WebhookDeliveryRow;
  webhook_hosts: WebhookHostRow;
  notifications: NotificationRow;
  store_clock: StoreClockRow;
  imports: ImportRow;
  idempotency_keys: IdempotencyKeyRow;
  collections: CollectionRow;
  collection_items: CollectionItemRow;
  bank_reports: BankReportRow;
  plan_prices: PlanPriceRow;
}
