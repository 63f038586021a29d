// The schema, per engine, versioned alike: version N of one engine is version N of the other (a
// test holds the lists to the same length and the same tables and columns). Migrations run on
// open, in one transaction; SQLite records the version in PRAGMA user_version, PostgreSQL in
// billing_schema. Append new entries to both lists; never edit one that has shipped.
//
// Column types keep the documents identical on both engines: ids and cents are integers that
// come back as JS numbers (bigint on PostgreSQL, read through a parser that refuses unsafe ones),
// times are UTC instants (ISO text on SQLite, timestamptz read back as the same ISO text),
// flags are 0/1 (boolean on PostgreSQL, read back as 0/1), metadata is JSON text kept as written.
export const sqliteMigrations: string[] = [
  `
  CREATE TABLE accounts (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL UNIQUE,
    invoice_prefix TEXT NOT NULL DEFAULT 'INV-',
    time_zone TEXT NOT NULL DEFAULT 'Europe/Amsterdam',
    webhook_secret TEXT NOT NULL,
    is_default INTEGER NOT NULL DEFAULT 0,
    next_invoice_number INTEGER NOT NULL DEFAULT 1,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE UNIQUE INDEX accounts_one_default ON accounts(is_default) WHERE is_default = 1;
  CREATE TABLE api_keys (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts(id),
    key_hash TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL
  );
  CREATE TABLE customers (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts(id),
    gender TEXT, first_name TEXT NOT NULL, middle_name TEXT, last_name TEXT NOT NULL,
    company_name TEXT, vat_number TEXT, bank_holder TEXT, iban TEXT,
    payment_method TEXT NOT NULL DEFAULT 'directdebit', bank_verification_method TEXT,
    card_holder TEXT, card_number TEXT, postalcode TEXT, house_number TEXT, house_number_add TEXT,
    street TEXT, city TEXT, country_iso2 TEXT, language TEXT NOT NULL DEFAULT 'nl',
    email TEXT NOT NULL, telephone TEXT, archived INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL
  );
  CREATE INDEX customers_account ON customers(account_id, id);
  CREATE TABLE subscription_plans (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts(id),
    name TEXT NOT NULL, description TEXT, start_date TEXT NOT NULL,
    status TEXT NOT NULL, mandate_authentication_method TEXT NOT NULL,
    send_invoice INTEGER NOT NULL, storno_retries INTEGER NOT NULL, terms TEXT,
    archived INTEGER NOT NULL DEFAULT 0, amount_cents INTEGER NOT NULL, frequency TEXT NOT NULL,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL
  );
  CREATE INDEX plans_account ON subscription_plans(account_id, id);
  CREATE TABLE subscriptions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts(id),
    customer_id INTEGER NOT NULL REFERENCES customers(id),
    subscription_plan_id INTEGER NOT NULL REFERENCES subscription_plans(id),
    mandate_code TEXT NOT NULL,
    mandate_accepted INTEGER NOT NULL DEFAULT 0, mandate_accepted_date TEXT,
    start_date TEXT NOT NULL, status TEXT NOT NULL DEFAULT 'unverified',
    cancel_date TEXT, resume_date TEXT, confirmation_sent INTEGER NOT NULL DEFAULT 0,
    subscription_webhook_url TEXT, transaction_webhook_url TEXT, success_redirect_url TEXT,
    metadata TEXT, archived INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
    UNIQUE (account_id, mandate_code)
  );
  CREATE INDEX subscriptions_account ON subscriptions(account_id, id);
  CREATE INDEX subscriptions_customer ON subscriptions(customer_id, id);
  CREATE INDEX subscriptions_plan ON subscriptions(subscription_plan_id, id);
  `,
  // 2: finding customers and plans (filter[...] and sort). Each index serves one filter or one sort
  // key with ties by id; the expressions are exactly those the core's queries use (core/paging.ts).
  // filter[search] is a substring match, which no b-tree can serve: customers_search is an FTS5
  // table with the trigram tokenizer (a quoted term of 3 or more characters is a substring match
  // within one column), contentless and kept by triggers. It holds lower() of each column, as the
  // query lowercases the term, so case is folded for A-Z only, as lower() and LIKE do everywhere else.
  // customers_account is made again, last: to SQLite's planner the expression indexes look as narrow
  // as it is, and of equally cheap indexes it takes the newest, so the count of the plain list (the
  // hottest read) would move to a wider index. A test holds that plan (test/store/indexes.test.ts).
  `
  CREATE INDEX customers_email ON customers(account_id, lower(email), id);
  CREATE INDEX customers_archived ON customers(account_id, archived, id);
  CREATE INDEX customers_created ON customers(account_id, created_at, id);
  CREATE INDEX customers_last_name ON customers(account_id, lower(last_name), id);
  CREATE INDEX plans_status ON subscription_plans(account_id, status, id);
  CREATE INDEX plans_created ON subscription_plans(account_id, created_at, id);
  CREATE VIRTUAL TABLE customers_search USING fts5(
    first_name, middle_name, last_name, company_name, email,
    content = '', contentless_delete = 1, tokenize = 'trigram case_sensitive 1'
  );
  INSERT INTO customers_search (rowid, first_name, middle_name, last_name, company_name, email)
    SELECT id, lower(first_name), lower(middle_name), lower(last_name), lower(company_name), lower(email) FROM customers;
  CREATE TRIGGER customers_search_insert AFTER INSERT ON customers BEGIN
    INSERT INTO customers_search (rowid, first_name, middle_name, last_name, company_name, email)
      VALUES (new.id, lower(new.first_name), lower(new.middle_name), lower(new.last_name), lower(new.company_name), lower(new.email));
  END;
  CREATE TRIGGER customers_search_update AFTER UPDATE OF id, first_name, middle_name, last_name, company_name, email ON customers BEGIN
    DELETE FROM customers_search WHERE rowid = old.id;
    INSERT INTO customers_search (rowid, first_name, middle_name, last_name, company_name, email)
      VALUES (new.id, lower(new.first_name), lower(new.middle_name), lower(new.last_name), lower(new.company_name), lower(new.email));
  END;
  CREATE TRIGGER customers_search_delete AFTER DELETE ON customers BEGIN
    DELETE FROM customers_search WHERE rowid = old.id;
  END;
  DROP INDEX customers_account;
  CREATE INDEX customers_account ON customers(account_id, id);
  `,
  // 3: subscriptions at work. Transactions (a UUID for the API, seq for paging and copying), the due
  // work queue (one row per thing that happens when a date is reached, claimed and deleted in the
  // transaction that does it), status-change events, customer notifications, and the store's clock
  // (no row: real time). A subscription keeps the anchor day of its plan cycles and the next cycle
  // to collect, so month ends are kept (Jan 31, Feb 28, Mar 31) and a resume skips what was paused.
  `
  ALTER TABLE subscriptions ADD COLUMN cycle_anchor TEXT;
  ALTER TABLE subscriptions ADD COLUMN next_cycle INTEGER NOT NULL DEFAULT 0;
  CREATE INDEX subscriptions_status ON subscriptions(account_id, status, id);
  CREATE INDEX subscriptions_created ON subscriptions(account_id, created_at, id);
  CREATE INDEX subscriptions_start ON subscriptions(account_id, start_date, id);
  CREATE TABLE transactions (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    account_id INTEGER NOT NULL REFERENCES accounts(id),
    subscription_id INTEGER NOT NULL REFERENCES subscriptions(id),
    origin TEXT NOT NULL, cycle INTEGER, status TEXT NOT NULL,
    scheduled_on TEXT, due_date TEXT NOT NULL, amount_cents INTEGER NOT NULL, canceled_on TEXT,
    webhook_url TEXT, payment_method TEXT NOT NULL, description TEXT,
    attempt INTEGER NOT NULL DEFAULT 1, history TEXT NOT NULL DEFAULT '[]',
    outcome TEXT, outcome_code TEXT,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL
  );
  CREATE INDEX transactions_subscription ON transactions(subscription_id, due_date, seq);
  CREATE INDEX transactions_open ON transactions(subscription_id, status);
  CREATE TABLE due_work (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts(id),
    due_at TEXT NOT NULL, rank INTEGER NOT NULL, kind TEXT NOT NULL, subject TEXT NOT NULL
  );
  CREATE INDEX due_work_due ON due_work(due_at, rank, id);
  CREATE TABLE events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts(id),
    name TEXT NOT NULL, subscription_id INTEGER NOT NULL, transaction_id TEXT, status TEXT NOT NULL,
    occurred_at TEXT NOT NULL
  );
  CREATE INDEX events_account ON events(account_id, id);
  CREATE TABLE notifications (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts(id),
    customer_id INTEGER NOT NULL, subscription_id INTEGER NOT NULL,
    kind TEXT NOT NULL, channel TEXT NOT NULL, language TEXT NOT NULL, recipient TEXT,
    subject TEXT NOT NULL, body TEXT NOT NULL, created_at TEXT NOT NULL
  );
  CREATE INDEX notifications_account ON notifications(account_id, id);
  CREATE TABLE store_clock (id INTEGER PRIMARY KEY CHECK (id = 1), test_time TEXT NOT NULL);
  `,
  // 4: invoices and their lines. Totals are kept on the invoice, summed again from its lines in the
  // transaction that changes one, so a list reads no lines. A reference's number is unique per
  // account (the index is the last guard: numbers are taken from accounts.next_invoice_number under
  // its row lock). A transaction made for an invoice names it, so the invoice can follow it.
  `
  CREATE TABLE invoices (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts(id),
    subscription_id INTEGER NOT NULL REFERENCES subscriptions(id),
    customer_id INTEGER NOT NULL REFERENCES customers(id),
    status TEXT NOT NULL, number INTEGER, reference TEXT,
    amount_excl_cents INTEGER NOT NULL DEFAULT 0, tax_amount_cents INTEGER NOT NULL DEFAULT 0, tax_rates TEXT NOT NULL DEFAULT '[]',
    invoice_date TEXT, transaction_date TEXT,
    original_invoice_id INTEGER REFERENCES invoices(id),
    send_email INTEGER NOT NULL, transaction_id TEXT, hosted_token TEXT UNIQUE, finalised_at TEXT,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL
  );
  CREATE INDEX invoices_account ON invoices(account_id, id);
  CREATE UNIQUE INDEX invoices_number ON invoices(account_id, number);
  CREATE INDEX invoices_status ON invoices(account_id, status, id);
  CREATE INDEX invoices_created ON invoices(account_id, created_at, id);
  CREATE INDEX invoices_date ON invoices(account_id, invoice_date, id);
  CREATE INDEX invoices_customer ON invoices(customer_id, id);
  CREATE INDEX invoices_subscription ON invoices(subscription_id, id);
  CREATE TABLE invoice_lines (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts(id),
    invoice_id INTEGER NOT NULL REFERENCES invoices(id),
    description TEXT NOT NULL, amount_cents INTEGER NOT NULL, tax_rate INTEGER NOT NULL, tax_included INTEGER NOT NULL,
    quantity INTEGER NOT NULL, unit_excl_cents INTEGER NOT NULL, unit_tax_cents INTEGER NOT NULL,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL
  );
  CREATE INDEX invoice_lines_invoice ON invoice_lines(invoice_id, id);
  ALTER TABLE transactions ADD COLUMN invoice_id INTEGER REFERENCES invoices(id);
  `,
  // 5: batch jobs. An import's progress through one file (by its content hash): the byte offset
  // committed so far, written in the transaction that imports the rows before it, so a rerun after
  // any kill goes on from there. An idempotency key's first answer, replayed for 24 hours: the row
  // is written in the transaction of the request's own write, so a request can never be done twice.
  `
  CREATE TABLE imports (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts(id),
    kind TEXT NOT NULL, content_hash TEXT NOT NULL,
    position INTEGER NOT NULL, line INTEGER NOT NULL, imported INTEGER NOT NULL, rejected INTEGER NOT NULL,
    rejects_bytes INTEGER NOT NULL, done INTEGER NOT NULL,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL
  );
  CREATE UNIQUE INDEX imports_file ON imports(account_id, kind, content_hash);
  CREATE TABLE idempotency_keys (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts(id),
    key TEXT NOT NULL, request_hash TEXT NOT NULL,
    status INTEGER, headers TEXT, body TEXT,
    created_at TEXT NOT NULL
  );
  CREATE UNIQUE INDEX idempotency_keys_key ON idempotency_keys(account_id, key);
  CREATE INDEX idempotency_keys_created ON idempotency_keys(created_at);
  -- An import indexes its customers for search once per batch (one INSERT ... SELECT, four times
  -- faster than the trigger row by row); while a row is here, inside its transaction, the trigger
  -- leaves them to it. No other connection ever sees the row (it is deleted before the commit).
  CREATE TABLE search_deferred (id INTEGER PRIMARY KEY);
  DROP TRIGGER customers_search_insert;
  CREATE TRIGGER customers_search_insert AFTER INSERT ON customers WHEN NOT EXISTS (SELECT 1 FROM search_deferred) BEGIN
    INSERT INTO customers_search (rowid, first_name, middle_name, last_name, company_name, email)
      VALUES (new.id, lower(new.first_name), lower(new.middle_name), lower(new.last_name), lower(new.company_name), lower(new.email));
  END;
  `,
  // 6: events leave the store. Each status change's event is written with one delivery row per
  // webhook URL it goes to, in the change's own transaction (the outbox): nothing is sent that was
  // not committed, nothing committed is forgotten. A delivery keeps its id across retries (receivers
  // drop duplicates by it); next_at is by the store's clock (retries are due work), claimed_until by
  // real time (a sender that died gives its claims back when they lapse). A notification to send by
  // email has next_send_at until it is sent or given up.
  `
  ALTER TABLE events ADD COLUMN uid TEXT;
  CREATE TABLE webhook_deliveries (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts(id),
    event_uid TEXT NOT NULL, delivery_id TEXT NOT NULL, event TEXT NOT NULL,
    url TEXT NOT NULL, body TEXT NOT NULL,
    status TEXT NOT NULL, attempts INTEGER NOT NULL, next_at TEXT NOT NULL,
    claimed_by TEXT, claimed_until TEXT,
    last_status INTEGER, last_error TEXT, delivered_at TEXT,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL
  );
  CREATE UNIQUE INDEX webhook_deliveries_delivery ON webhook_deliveries(delivery_id);
  CREATE INDEX webhook_deliveries_due ON webhook_deliveries(next_at, id) WHERE status = 'pending';
  CREATE INDEX webhook_deliveries_account ON webhook_deliveries(account_id, id);
  ALTER TABLE notifications ADD COLUMN sent_at TEXT;
  ALTER TABLE notifications ADD COLUMN send_attempts INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE notifications ADD COLUMN send_error TEXT;
  ALTER TABLE notifications ADD COLUMN next_send_at TEXT;
  ALTER TABLE notifications ADD COLUMN claimed_until TEXT;
  CREATE INDEX notifications_unsent ON notifications(next_send_at, id) WHERE next_send_at IS NOT NULL;
  `,
  // A secret in every mandate page's URL. confirmation_page was <base>/mandate/accept/<id>/<mandate code>,
  // and a generated code is MNDT-<id>: anyone could walk the ids. The URL now ends in confirmation_token
  // (32 random bytes as 64 hex digits; SQLite's randomblob is a CSPRNG seeded by the OS), which the page
  // compares in constant time with the row it finds by id. The old URLs answer 404. A mandate
  // confirmation not yet sent gets the new link (the code as encodeURIComponent writes it: of the SEPA
  // characters a code may hold, it encodes only these six); one already sent stays as it was sent.
  `
  ALTER TABLE subscriptions ADD COLUMN confirmation_token TEXT;
  UPDATE subscriptions SET confirmation_token = lower(hex(randomblob(32)));
  UPDATE notifications SET body = replace(
    notifications.body,
    '/mandate/accept/' || s.id || '/' || replace(replace(replace(replace(replace(replace(s.mandate_code,
      ' ', '%20'), '/', '%2F'), '?', '%3F'), ':', '%3A'), ',', '%2C'), '+', '%2B') || char(10),
    '/mandate/accept/' || s.id || '/' || s.confirmation_token || char(10))
  FROM subscriptions s
  WHERE s.id = notifications.subscription_id
    AND notifications.kind = 'mandate_confirmation' AND notifications.sent_at IS NULL;
  `,
  // 8: fair webhook delivery, and the private-address policy of each delivery. host is the
  // receiver a delivery counts against (host:port of its URL as written, before name resolution):
  // claims take due rows fairly across hosts. Rows written before this version get their URL as
  // host (each URL counts as a receiver of its own while they drain; a retry by hand sets the real
  // one). allow_private is whether whoever wrote the row allowed private targets: old rows are
  // taken as written under the strict policy (nobody can tell which process wrote them, and
  // wrongly refusing a receiver on a private network is visible and fixed by an operator, where
  // wrongly sending inside the network is neither). webhook_hosts holds the receivers that timed
  // out, by real time, so every sender of the store holds them back (not copied: a copy learns
  // them again with one timeout).
  `
  ALTER TABLE webhook_deliveries ADD COLUMN host TEXT NOT NULL DEFAULT '';
  ALTER TABLE webhook_deliveries ADD COLUMN allow_private INTEGER NOT NULL DEFAULT 0;
  UPDATE webhook_deliveries SET host = url WHERE status = 'pending';
  CREATE TABLE webhook_hosts (host TEXT PRIMARY KEY, timeouts INTEGER NOT NULL, retry_at TEXT NOT NULL);
  `,
  // 9: an idempotency key keeps what each write of its request gave back (a JSON array, in order),
  // written in that write's own transaction: a request cut off before its answer was stored is
  // answered from them, never carried out again.
  `
  ALTER TABLE idempotency_keys ADD COLUMN writes TEXT;
  `,
  // 10: collecting for real (SEPA). An account collects by simulation (the default) or by SEPA
  // Direct Debit, with its creditor settings and the days a pre-notification must come before a
  // collection. A collection batch freezes what its pain.008 file says (creditor at the first export,
  // every debit as it was when batched), so the same batch always exports the same bytes; an item is
  // one presentation of a transaction (a re-presentation after a return is another), in at most one
  // batch that is not cancelled (collection_items_once), its EndToEndId unique in the account. A
  // transaction names the batch holding its current attempt. The bank's reports applied are kept by
  // their content hash: the same file imported again changes nothing. A mandate a bank refused for a
  // reason no retry cures is flagged on its subscription until the mandate or the IBAN changes.
  // transactions_batching is led by status, not account_id: SQLite keeps no statistics and would
  // take an index led by account_id over the id's unique index for the ledger's lookup by many ids
  // (`id IN (...1,000) AND account_id = ?`), reading every transaction of the account each time
  // (25.8 s of a 48 s batch of 100,000). With collection_id in it, a batch's search for what is due
  // and in no batch yet skips what it already took.
  `
  ALTER TABLE accounts ADD COLUMN collection TEXT NOT NULL DEFAULT 'simulated';
  ALTER TABLE accounts ADD COLUMN creditor_id TEXT;
  ALTER TABLE accounts ADD COLUMN creditor_name TEXT;
  ALTER TABLE accounts ADD COLUMN creditor_iban TEXT;
  ALTER TABLE accounts ADD COLUMN creditor_bic TEXT;
  ALTER TABLE accounts ADD COLUMN prenotification_days INTEGER NOT NULL DEFAULT 14;
  ALTER TABLE subscriptions ADD COLUMN mandate_attention TEXT;
  ALTER TABLE subscriptions ADD COLUMN mandate_attention_on TEXT;
  ALTER TABLE transactions ADD COLUMN collection_id INTEGER;
  CREATE INDEX transactions_batching ON transactions(status, account_id, collection_id, due_date);
  CREATE TABLE collections (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts(id),
    status TEXT NOT NULL, message_id TEXT NOT NULL UNIQUE, due_until TEXT NOT NULL,
    transaction_count INTEGER NOT NULL, control_sum_cents INTEGER NOT NULL,
    creditor_id TEXT, creditor_name TEXT, creditor_iban TEXT, creditor_bic TEXT,
    exported_at TEXT, cancelled_at TEXT,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL
  );
  CREATE INDEX collections_account ON collections(account_id, id);
  CREATE TABLE collection_items (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts(id),
    collection_id INTEGER NOT NULL REFERENCES collections(id),
    transaction_id TEXT NOT NULL, subscription_id INTEGER NOT NULL, attempt INTEGER NOT NULL,
    state TEXT NOT NULL, end_to_end_id TEXT NOT NULL, sequence_type TEXT NOT NULL, collection_date TEXT NOT NULL,
    amount_cents INTEGER NOT NULL, mandate_id TEXT NOT NULL, mandate_signed_on TEXT NOT NULL,
    debtor_name TEXT NOT NULL, debtor_iban TEXT NOT NULL, remittance TEXT,
    original_mandate_id TEXT, original_debtor_iban TEXT, original_debtor_agent TEXT,
    reason_code TEXT, settled_at TEXT,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL
  );
  CREATE INDEX collection_items_file ON collection_items(collection_id, collection_date, sequence_type, id);
  CREATE INDEX collection_items_mandate ON collection_items(subscription_id, collection_date, id);
  CREATE UNIQUE INDEX collection_items_once ON collection_items(transaction_id, attempt) WHERE state <> 'cancelled';
  CREATE UNIQUE INDEX collection_items_e2e ON collection_items(account_id, end_to_end_id) WHERE state <> 'cancelled';
  CREATE TABLE bank_reports (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts(id),
    format TEXT NOT NULL, message_id TEXT NOT NULL, content_hash TEXT NOT NULL,
    entries INTEGER NOT NULL, booked INTEGER NOT NULL, rejected INTEGER NOT NULL, returned INTEGER NOT NULL,
    unchanged INTEGER NOT NULL, unmatched INTEGER NOT NULL, unmatched_entries TEXT NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE UNIQUE INDEX bank_reports_file ON bank_reports(account_id, content_hash);
  CREATE INDEX bank_reports_account ON bank_reports(account_id, id);
  `,
  // 11: reports. An event becomes a whole record of its change: the status it left (from_status),
  // the SEPA reason code of a return or failure, and a transaction's amount, so a report groups
  // status changes in SQL (by status, previous status and period) without parsing histories or
  // joining transactions; events written before this version get them from the histories. A plan's
  // amount and frequency before each change are kept by a trigger (plan_prices, `until` the change),
  // whoever changes them, so MRR at a past date uses the amount of that date. The indexes serve the
  // reports' grouped reads; the partial ones hold only the rows a report reads, and the reports'
  // queries repeat their conditions word for word (SQLite uses a partial index only so).
  `
  ALTER TABLE events ADD COLUMN from_status TEXT;
  ALTER TABLE events ADD COLUMN reason_code TEXT;
  ALTER TABLE events ADD COLUMN amount_cents INTEGER;
  UPDATE events SET from_status = before.status
    FROM (
      SELECT id, LAG(status) OVER (PARTITION BY subscription_id, transaction_id ORDER BY id) AS status FROM events
    ) AS before
    WHERE before.id = events.id AND before.status IS NOT NULL;
  UPDATE events SET amount_cents = (SELECT t.amount_cents FROM transactions t WHERE t.id = events.transaction_id)
    WHERE transaction_id IS NOT NULL;
  UPDATE events SET reason_code = (
      SELECT json_extract(h.value, '$.reason_code') FROM transactions t, json_each(t.history) h
      WHERE t.id = events.transaction_id AND json_extract(h.value, '$.status') = events.status
        AND json_extract(h.value, '$.recorded_on') = events.occurred_at
      LIMIT 1)
    WHERE transaction_id IS NOT NULL AND status IN ('charged_back', 'failed');
  CREATE INDEX events_subscription_changes ON events(account_id, occurred_at, status, from_status, subscription_id)
    WHERE name = 'subscription.status';
  CREATE INDEX events_collections ON events(account_id, status, occurred_at, from_status, amount_cents, reason_code)
    WHERE name = 'transaction.status' AND status IN ('succeeded', 'charged_back', 'failed');
  CREATE INDEX invoices_finalised
    ON invoices(account_id, invoice_date, original_invoice_id, amount_excl_cents, tax_amount_cents, id)
    WHERE status <> 'draft';
  CREATE INDEX invoices_credits ON invoices(original_invoice_id) WHERE original_invoice_id IS NOT NULL;
  CREATE INDEX invoice_lines_tax ON invoice_lines(invoice_id, tax_rate, quantity, unit_excl_cents, unit_tax_cents);
  CREATE TABLE plan_prices (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts(id),
    subscription_plan_id INTEGER NOT NULL REFERENCES subscription_plans(id),
    amount_cents INTEGER NOT NULL, frequency TEXT NOT NULL, until TEXT NOT NULL
  );
  CREATE INDEX plan_prices_plan ON plan_prices(account_id, subscription_plan_id, until);
  CREATE TRIGGER plan_prices_kept AFTER UPDATE OF amount_cents, frequency ON subscription_plans
    WHEN old.amount_cents IS NOT new.amount_cents OR old.frequency IS NOT new.frequency BEGIN
    INSERT INTO plan_prices (account_id, subscription_plan_id, amount_cents, frequency, until)
      VALUES (old.account_id, old.id, old.amount_cents, old.frequency, new.updated_at);
  END;
  `,
  // 12: failed collections in one place (GET /transactions across the account). A transaction
  // keeps the last SEPA reason code of its history in a column of its own (the ledger writes it with
  // the history), so filter[reason_code] reads an index rather than every history; those before this
  // version get it from their histories. The indexes serve the list newest due date first, by status
  // (one or several) and a due-date range. None is led by account_id alone: SQLite, without
  // statistics, would take it over the id's unique index for the ledger's lookup by many ids (see
  // 10), so the unfiltered one is led by due_date, the status one by status, as transactions_batching.
  `
  ALTER TABLE transactions ADD COLUMN reason_code TEXT;
  UPDATE transactions SET reason_code = (
      SELECT json_extract(h.value, '$.reason_code') FROM json_each(transactions.history) h
      WHERE json_extract(h.value, '$.reason_code') IS NOT NULL ORDER BY h.key DESC LIMIT 1)
    WHERE history LIKE '%"reason_code":"%';
  CREATE INDEX transactions_due ON transactions(due_date, account_id, seq);
  CREATE INDEX transactions_status_due ON transactions(status, account_id, due_date, seq);
  CREATE INDEX transactions_reason ON transactions(account_id, reason_code, due_date, seq) WHERE reason_code IS NOT NULL;
  `,
  // 13: credits. A credit line names the line of the original invoice it credits, so what is left
  // to credit of each line is a sum (partial credits); a credit invoice owed to the customer records
  // the day it was refunded. Both start empty: credits made before this version count by amount only.
  `
  ALTER TABLE invoices ADD COLUMN refunded_on TEXT;
  ALTER TABLE invoice_lines ADD COLUMN credited_line_id INTEGER REFERENCES invoice_lines(id);
  CREATE INDEX invoice_lines_credited ON invoice_lines(credited_line_id) WHERE credited_line_id IS NOT NULL;
  `,
  // 14: search as support types it (all words, any order, accents aside, IBAN and phone too). Each
  // customer keeps one folded search text (store/search-text.ts), written by the core with the row:
  // neither engine folds accents alike in SQL. The trigram index moves from the five lowered columns
  // to it. Rows before this version get theirs from fillSearchText, in this migration's transaction.
  `
  ALTER TABLE customers ADD COLUMN search_text TEXT NOT NULL DEFAULT '';
  DROP TRIGGER IF EXISTS customers_search_insert;
  DROP TRIGGER IF EXISTS customers_search_update;
  DROP TRIGGER IF EXISTS customers_search_delete;
  DROP TABLE IF EXISTS customers_search;
  CREATE VIRTUAL TABLE customers_search USING fts5(
    search_text, content = '', contentless_delete = 1, tokenize = 'trigram case_sensitive 1'
  );
  CREATE TRIGGER customers_search_insert AFTER INSERT ON customers WHEN NOT EXISTS (SELECT 1 FROM search_deferred) BEGIN
    INSERT INTO customers_search (rowid, search_text) VALUES (new.id, new.search_text);
  END;
  CREATE TRIGGER customers_search_update AFTER UPDATE OF id, search_text ON customers BEGIN
    DELETE FROM customers_search WHERE rowid = old.id;
    INSERT INTO customers_search (rowid, search_text) VALUES (new.id, new.search_text);
  END;
  CREATE TRIGGER customers_search_delete AFTER DELETE ON customers BEGIN
    DELETE FROM customers_search WHERE rowid = old.id;
  END;
  `,
  // 15: the best matches of a search without reading every match. The first two ranks (the name is
  // what was typed; the name starts with it) are ranges of the search text, read in their order
  // through this index; a search that finds 11,000 customers by a first name would otherwise read
  // them all to rank them. customers_account is made again, last, as in 2.
  `
  CREATE INDEX customers_search_text ON customers(account_id, lower(search_text), id);
  DROP INDEX customers_account;
  CREATE INDEX customers_account ON customers(account_id, id);
  `,
  // 16: "not cancelled" for the unique indexes of collection items is when their batch was
  // cancelled, a column written once, not their state: SQLite rewrites a partial index whose
  // condition names a column an UPDATE sets, and every entry of a bank's report sets the state
  // (100,000 bookings: 2.3 s of index writes, 0.5 s without).
  `
  ALTER TABLE collection_items ADD COLUMN cancelled_at TEXT;
  UPDATE collection_items SET cancelled_at = updated_at WHERE state = 'cancelled';
  DROP INDEX collection_items_once;
  DROP INDEX collection_items_e2e;
  CREATE UNIQUE INDEX collection_items_once ON collection_items(transaction_id, attempt) WHERE cancelled_at IS NULL;
  CREATE UNIQUE INDEX collection_items_e2e ON collection_items(account_id, end_to_end_id) WHERE cancelled_at IS NULL;
  `,
  // 17: a transaction's batch is its item's alone (ledger.ts batchOf), as the unique index of live
  // items already said: making a batch no longer writes every transaction it takes, nor keeps their
  // index of batched and unbatched. A batch's search for what is due reads transactions_status_due
  // and skips what a live item holds.
  `
  DROP INDEX transactions_batching;
  ALTER TABLE transactions DROP COLUMN collection_id;
  `,
  // 18: a report's entry is found by the transaction its EndToEndId names (collections.ts
  // transactionOf), through the unique index of live items: the index of EndToEndIds, which made a
  // batch write every item into one more random place (100,000 items: about 0.5 s), goes.
  `
  DROP INDEX collection_items_e2e;
  `,
  // 19: nothing here: PostgreSQL's 19 leaves room on its pages of collection items, which SQLite's
  // pages do not need (a row is rewritten in place).
  '',
  // 20: nothing here: PostgreSQL's 20 leads transactions_status_due by account. SQLite plans the
  // open transactions of a page of subscriptions by the two equalities of transactions_open, and
  // would take an index led by account for the ledger's lookup by many ids (see 12).
  '',
  // 21: nothing here: PostgreSQL's 21 drops foreign keys of rows written in bulk, which SQLite checks
  // in process, at a fraction of the cost.
  '',
  // 22: the unique index of live items is keyed by the transaction's row number, not its UUID. A
  // batch writes its items in the order its transactions were made, so each entry goes at the end of
  // the index, where a random UUID put it anywhere in it. Every item's transaction is in the store
  // (none is ever deleted); one that is not keeps a key of its own (minus the item's id).
  `
  ALTER TABLE collection_items ADD COLUMN transaction_seq INTEGER NOT NULL DEFAULT 0;
  UPDATE collection_items SET transaction_seq =
    coalesce((SELECT t.seq FROM transactions t WHERE t.id = collection_items.transaction_id), -id);
  DROP INDEX collection_items_once;
  CREATE UNIQUE INDEX collection_items_once ON collection_items(transaction_seq, attempt) WHERE cancelled_at IS NULL;
  `,
];

/** The migration whose rows fillSearchText completes (the SQL cannot fold as the core does). */
export const SEARCH_TEXT_VERSION = 14;

export const postgresMigrations: string[] = [
  `
  CREATE TABLE accounts (
    id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    name text NOT NULL UNIQUE,
    invoice_prefix text NOT NULL DEFAULT 'INV-',
    time_zone text NOT NULL DEFAULT 'Europe/Amsterdam',
    webhook_secret text NOT NULL,
    is_default boolean NOT NULL DEFAULT false,
    next_invoice_number bigint NOT NULL DEFAULT 1,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
  );
  CREATE UNIQUE INDEX accounts_one_default ON accounts(is_default) WHERE is_default;
  CREATE TABLE api_keys (
    id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    account_id bigint NOT NULL REFERENCES accounts(id),
    key_hash text NOT NULL UNIQUE,
    created_at timestamptz NOT NULL
  );
  CREATE INDEX api_keys_account ON api_keys(account_id);
  CREATE TABLE customers (
    id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    account_id bigint NOT NULL REFERENCES accounts(id),
    gender text, first_name text NOT NULL, middle_name text, last_name text NOT NULL,
    company_name text, vat_number text, bank_holder text, iban text,
    payment_method text NOT NULL DEFAULT 'directdebit', bank_verification_method text,
    card_holder text, card_number text, postalcode text, house_number text, house_number_add text,
    street text, city text, country_iso2 text, language text NOT NULL DEFAULT 'nl',
    email text NOT NULL, telephone text, archived boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL
  );
  CREATE INDEX customers_account ON customers(account_id, id);
  CREATE TABLE subscription_plans (
    id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    account_id bigint NOT NULL REFERENCES accounts(id),
    name text NOT NULL, description text, start_date timestamptz NOT NULL,
    status text NOT NULL, mandate_authentication_method text NOT NULL,
    send_invoice boolean NOT NULL, storno_retries integer NOT NULL, terms text,
    archived boolean NOT NULL DEFAULT false, amount_cents bigint NOT NULL, frequency text NOT NULL,
    created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL
  );
  CREATE INDEX plans_account ON subscription_plans(account_id, id);
  CREATE TABLE subscriptions (
    id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    account_id bigint NOT NULL REFERENCES accounts(id),
    customer_id bigint NOT NULL REFERENCES customers(id),
    subscription_plan_id bigint NOT NULL REFERENCES subscription_plans(id),
    mandate_code text NOT NULL,
    mandate_accepted boolean NOT NULL DEFAULT false, mandate_accepted_date timestamptz,
    start_date timestamptz NOT NULL, status text NOT NULL DEFAULT 'unverified',
    cancel_date timestamptz, resume_date timestamptz, confirmation_sent boolean NOT NULL DEFAULT false,
    subscription_webhook_url text, transaction_webhook_url text, success_redirect_url text,
    metadata json, archived boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL,
    UNIQUE (account_id, mandate_code)
  );
  CREATE INDEX subscriptions_account ON subscriptions(account_id, id);
  CREATE INDEX subscriptions_customer ON subscriptions(customer_id, id);
  CREATE INDEX subscriptions_plan ON subscriptions(subscription_plan_id, id);
  `,
  // 2: as SQLite's 2. Text is lowered and ordered under COLLATE "C" (lower() folds A-Z only, the
  // order is by code point), whatever the database's collation, so both engines find and order
  // alike; the queries use these exact expressions. filter[search] uses pg_trgm (a trusted extension: the
  // database owner may create it) through one GIN index over the five lowercased columns.
  `
  CREATE EXTENSION IF NOT EXISTS pg_trgm;
  CREATE INDEX customers_email ON customers(account_id, lower(email COLLATE "C"), id);
  CREATE INDEX customers_archived ON customers(account_id, archived, id);
  CREATE INDEX customers_created ON customers(account_id, created_at, id);
  CREATE INDEX customers_last_name ON customers(account_id, lower(last_name COLLATE "C"), id);
  CREATE INDEX plans_status ON subscription_plans(account_id, status, id);
  CREATE INDEX plans_created ON subscription_plans(account_id, created_at, id);
  CREATE INDEX customers_search ON customers USING gin (
    lower(first_name COLLATE "C") gin_trgm_ops, lower(middle_name COLLATE "C") gin_trgm_ops, lower(last_name COLLATE "C") gin_trgm_ops,
    lower(company_name COLLATE "C") gin_trgm_ops, lower(email COLLATE "C") gin_trgm_ops
  );
  `,
  // 3: as SQLite's 3.
  `
  ALTER TABLE subscriptions ADD COLUMN cycle_anchor text;
  ALTER TABLE subscriptions ADD COLUMN next_cycle integer NOT NULL DEFAULT 0;
  CREATE INDEX subscriptions_status ON subscriptions(account_id, status, id);
  CREATE INDEX subscriptions_created ON subscriptions(account_id, created_at, id);
  CREATE INDEX subscriptions_start ON subscriptions(account_id, start_date, id);
  CREATE TABLE transactions (
    seq bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    id text NOT NULL UNIQUE,
    account_id bigint NOT NULL REFERENCES accounts(id),
    subscription_id bigint NOT NULL REFERENCES subscriptions(id),
    origin text NOT NULL, cycle integer, status text NOT NULL,
    scheduled_on timestamptz, due_date timestamptz NOT NULL, amount_cents bigint NOT NULL, canceled_on timestamptz,
    webhook_url text, payment_method text NOT NULL, description text,
    attempt integer NOT NULL DEFAULT 1, history text NOT NULL DEFAULT '[]',
    outcome text, outcome_code text,
    created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL
  );
  CREATE INDEX transactions_subscription ON transactions(subscription_id, due_date, seq);
  CREATE INDEX transactions_open ON transactions(subscription_id, status);
  CREATE TABLE due_work (
    id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    account_id bigint NOT NULL REFERENCES accounts(id),
    due_at timestamptz NOT NULL, rank integer NOT NULL, kind text NOT NULL, subject text NOT NULL
  );
  CREATE INDEX due_work_due ON due_work(due_at, rank, id);
  -- A queue: rows come and go all day. Vacuumed after every few thousand deletions (not a fifth of
  -- the table), so the lookup of the earliest due row does not walk dead index entries for long.
  ALTER TABLE due_work SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 2000, autovacuum_vacuum_cost_delay = 0);
  CREATE TABLE events (
    id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    account_id bigint NOT NULL REFERENCES accounts(id),
    name text NOT NULL, subscription_id bigint NOT NULL, transaction_id text, status text NOT NULL,
    occurred_at timestamptz NOT NULL
  );
  CREATE INDEX events_account ON events(account_id, id);
  CREATE TABLE notifications (
    id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    account_id bigint NOT NULL REFERENCES accounts(id),
    customer_id bigint NOT NULL, subscription_id bigint NOT NULL,
    kind text NOT NULL, channel text NOT NULL, language text NOT NULL, recipient text,
    subject text NOT NULL, body text NOT NULL, created_at timestamptz NOT NULL
  );
  CREATE INDEX notifications_account ON notifications(account_id, id);
  CREATE TABLE store_clock (id integer PRIMARY KEY CHECK (id = 1), test_time timestamptz NOT NULL);
  `,
  // 4: as SQLite's 4.
  `
  CREATE TABLE invoices (
    id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    account_id bigint NOT NULL REFERENCES accounts(id),
    subscription_id bigint NOT NULL REFERENCES subscriptions(id),
    customer_id bigint NOT NULL REFERENCES customers(id),
    status text NOT NULL, number bigint, reference text,
    amount_excl_cents bigint NOT NULL DEFAULT 0, tax_amount_cents bigint NOT NULL DEFAULT 0, tax_rates text NOT NULL DEFAULT '[]',
    invoice_date timestamptz, transaction_date timestamptz,
    original_invoice_id bigint REFERENCES invoices(id),
    send_email boolean NOT NULL, transaction_id text, hosted_token text UNIQUE, finalised_at timestamptz,
    created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL
  );
  CREATE INDEX invoices_account ON invoices(account_id, id);
  CREATE UNIQUE INDEX invoices_number ON invoices(account_id, number);
  CREATE INDEX invoices_status ON invoices(account_id, status, id);
  CREATE INDEX invoices_created ON invoices(account_id, created_at, id);
  CREATE INDEX invoices_date ON invoices(account_id, invoice_date, id);
  CREATE INDEX invoices_customer ON invoices(customer_id, id);
  CREATE INDEX invoices_subscription ON invoices(subscription_id, id);
  CREATE TABLE invoice_lines (
    id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    account_id bigint NOT NULL REFERENCES accounts(id),
    invoice_id bigint NOT NULL REFERENCES invoices(id),
    description text NOT NULL, amount_cents bigint NOT NULL, tax_rate integer NOT NULL, tax_included boolean NOT NULL,
    quantity integer NOT NULL, unit_excl_cents bigint NOT NULL, unit_tax_cents bigint NOT NULL,
    created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL
  );
  CREATE INDEX invoice_lines_invoice ON invoice_lines(invoice_id, id);
  ALTER TABLE transactions ADD COLUMN invoice_id bigint REFERENCES invoices(id);
  `,
  // 5: as SQLite's 5.
  `
  CREATE TABLE imports (
    id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    account_id bigint NOT NULL REFERENCES accounts(id),
    kind text NOT NULL, content_hash text NOT NULL,
    position bigint NOT NULL, line bigint NOT NULL, imported bigint NOT NULL, rejected bigint NOT NULL,
    rejects_bytes bigint NOT NULL, done boolean NOT NULL,
    created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL
  );
  CREATE UNIQUE INDEX imports_file ON imports(account_id, kind, content_hash);
  CREATE TABLE idempotency_keys (
    id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    account_id bigint NOT NULL REFERENCES accounts(id),
    key text NOT NULL, request_hash text NOT NULL,
    status integer, headers text, body text,
    created_at timestamptz NOT NULL
  );
  CREATE UNIQUE INDEX idempotency_keys_key ON idempotency_keys(account_id, key);
  CREATE INDEX idempotency_keys_created ON idempotency_keys(created_at);
  -- Unused here (the trigram index is a GIN index PostgreSQL keeps): made so both engines have the same tables.
  CREATE TABLE search_deferred (id integer PRIMARY KEY);
  `,
  // 6: as SQLite's 6. The outbox is a queue like due_work: vacuumed after every few thousand changes.
  `
  ALTER TABLE events ADD COLUMN uid text;
  CREATE TABLE webhook_deliveries (
    id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    account_id bigint NOT NULL REFERENCES accounts(id),
    event_uid text NOT NULL, delivery_id text NOT NULL, event text NOT NULL,
    url text NOT NULL, body text NOT NULL,
    status text NOT NULL, attempts integer NOT NULL, next_at timestamptz NOT NULL,
    claimed_by text, claimed_until timestamptz,
    last_status integer, last_error text, delivered_at timestamptz,
    created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL
  );
  CREATE UNIQUE INDEX webhook_deliveries_delivery ON webhook_deliveries(delivery_id);
  CREATE INDEX webhook_deliveries_due ON webhook_deliveries(next_at, id) WHERE status = 'pending';
  CREATE INDEX webhook_deliveries_account ON webhook_deliveries(account_id, id);
  ALTER TABLE webhook_deliveries SET (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 2000, autovacuum_vacuum_cost_delay = 0);
  ALTER TABLE notifications ADD COLUMN sent_at timestamptz;
  ALTER TABLE notifications ADD COLUMN send_attempts integer NOT NULL DEFAULT 0;
  ALTER TABLE notifications ADD COLUMN send_error text;
  ALTER TABLE notifications ADD COLUMN next_send_at timestamptz;
  ALTER TABLE notifications ADD COLUMN claimed_until timestamptz;
  CREATE INDEX notifications_unsent ON notifications(next_send_at, id) WHERE next_send_at IS NOT NULL;
  `,
  // As SQLite's entry of confirmation_token. gen_random_uuid() is PostgreSQL's own CSPRNG (122 random
  // bits each): the SHA-256 of two is 64 hex digits like SQLite's, with 244 bits of randomness.
  `
  ALTER TABLE subscriptions ADD COLUMN confirmation_token text;
  UPDATE subscriptions SET confirmation_token =
    encode(sha256(convert_to(gen_random_uuid()::text || gen_random_uuid()::text, 'UTF8')), 'hex');
  ALTER TABLE subscriptions ALTER COLUMN confirmation_token SET NOT NULL;
  UPDATE notifications SET body = replace(
    notifications.body,
    '/mandate/accept/' || s.id || '/' || replace(replace(replace(replace(replace(replace(s.mandate_code,
      ' ', '%20'), '/', '%2F'), '?', '%3F'), ':', '%3A'), ',', '%2C'), '+', '%2B') || chr(10),
    '/mandate/accept/' || s.id || '/' || s.confirmation_token || chr(10))
  FROM subscriptions s
  WHERE s.id = notifications.subscription_id
    AND notifications.kind = 'mandate_confirmation' AND notifications.sent_at IS NULL;
  `,
  // 8: as SQLite's 8.
  `
  ALTER TABLE webhook_deliveries ADD COLUMN host text NOT NULL DEFAULT '';
  ALTER TABLE webhook_deliveries ADD COLUMN allow_private boolean NOT NULL DEFAULT false;
  UPDATE webhook_deliveries SET host = url WHERE status = 'pending';
  CREATE TABLE webhook_hosts (host text PRIMARY KEY, timeouts integer NOT NULL, retry_at timestamptz NOT NULL);
  `,
  // 9: as SQLite's 9.
  `
  ALTER TABLE idempotency_keys ADD COLUMN writes text;
  `,
  // 10: as SQLite's 10.
  `
  ALTER TABLE accounts ADD COLUMN collection text NOT NULL DEFAULT 'simulated';
  ALTER TABLE accounts ADD COLUMN creditor_id text;
  ALTER TABLE accounts ADD COLUMN creditor_name text;
  ALTER TABLE accounts ADD COLUMN creditor_iban text;
  ALTER TABLE accounts ADD COLUMN creditor_bic text;
  ALTER TABLE accounts ADD COLUMN prenotification_days integer NOT NULL DEFAULT 14;
  ALTER TABLE subscriptions ADD COLUMN mandate_attention text;
  ALTER TABLE subscriptions ADD COLUMN mandate_attention_on timestamptz;
  ALTER TABLE transactions ADD COLUMN collection_id bigint;
  CREATE INDEX transactions_batching ON transactions(status, account_id, collection_id, due_date);
  CREATE TABLE collections (
    id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    account_id bigint NOT NULL REFERENCES accounts(id),
    status text NOT NULL, message_id text NOT NULL UNIQUE, due_until text NOT NULL,
    transaction_count bigint NOT NULL, control_sum_cents bigint NOT NULL,
    creditor_id text, creditor_name text, creditor_iban text, creditor_bic text,
    exported_at timestamptz, cancelled_at timestamptz,
    created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL
  );
  CREATE INDEX collections_account ON collections(account_id, id);
  CREATE TABLE collection_items (
    id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    account_id bigint NOT NULL REFERENCES accounts(id),
    collection_id bigint NOT NULL REFERENCES collections(id),
    transaction_id text NOT NULL, subscription_id bigint NOT NULL, attempt integer NOT NULL,
    state text NOT NULL, end_to_end_id text NOT NULL, sequence_type text NOT NULL, collection_date text NOT NULL,
    amount_cents bigint NOT NULL, mandate_id text NOT NULL, mandate_signed_on text NOT NULL,
    debtor_name text NOT NULL, debtor_iban text NOT NULL, remittance text,
    original_mandate_id text, original_debtor_iban text, original_debtor_agent text,
    reason_code text, settled_at timestamptz,
    created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL
  );
  CREATE INDEX collection_items_file ON collection_items(collection_id, collection_date, sequence_type, id);
  CREATE INDEX collection_items_mandate ON collection_items(subscription_id, collection_date, id);
  CREATE UNIQUE INDEX collection_items_once ON collection_items(transaction_id, attempt) WHERE state <> 'cancelled';
  CREATE UNIQUE INDEX collection_items_e2e ON collection_items(account_id, end_to_end_id) WHERE state <> 'cancelled';
  CREATE TABLE bank_reports (
    id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    account_id bigint NOT NULL REFERENCES accounts(id),
    format text NOT NULL, message_id text NOT NULL, content_hash text NOT NULL,
    entries bigint NOT NULL, booked bigint NOT NULL, rejected bigint NOT NULL, returned bigint NOT NULL,
    unchanged bigint NOT NULL, unmatched bigint NOT NULL, unmatched_entries text NOT NULL,
    created_at timestamptz NOT NULL
  );
  CREATE UNIQUE INDEX bank_reports_file ON bank_reports(account_id, content_hash);
  CREATE INDEX bank_reports_account ON bank_reports(account_id, id);
  `,
  // 11: as SQLite's 11. The trigger is a PL/pgSQL function (PostgreSQL's own language, always there).
  `
  ALTER TABLE events ADD COLUMN from_status text;
  ALTER TABLE events ADD COLUMN reason_code text;
  ALTER TABLE events ADD COLUMN amount_cents bigint;
  UPDATE events SET from_status = before.status
    FROM (
      SELECT id, LAG(status) OVER (PARTITION BY subscription_id, transaction_id ORDER BY id) AS status FROM events
    ) AS before
    WHERE before.id = events.id AND before.status IS NOT NULL;
  UPDATE events SET amount_cents = t.amount_cents FROM transactions t WHERE t.id = events.transaction_id;
  UPDATE events SET reason_code = (
      SELECT h->>'reason_code' FROM transactions t, json_array_elements(t.history::json) h
      WHERE t.id = events.transaction_id AND h->>'status' = events.status
        AND (h->>'recorded_on')::timestamptz = events.occurred_at
      LIMIT 1)
    WHERE transaction_id IS NOT NULL AND status IN ('charged_back', 'failed');
  CREATE INDEX events_subscription_changes ON events(account_id, occurred_at, status, from_status, subscription_id)
    WHERE name = 'subscription.status';
  CREATE INDEX events_collections ON events(account_id, status, occurred_at, from_status, amount_cents, reason_code)
    WHERE name = 'transaction.status' AND status IN ('succeeded', 'charged_back', 'failed');
  CREATE INDEX invoices_finalised
    ON invoices(account_id, invoice_date, original_invoice_id, amount_excl_cents, tax_amount_cents, id)
    WHERE status <> 'draft';
  CREATE INDEX invoices_credits ON invoices(original_invoice_id) WHERE original_invoice_id IS NOT NULL;
  CREATE INDEX invoice_lines_tax ON invoice_lines(invoice_id, tax_rate, quantity, unit_excl_cents, unit_tax_cents);
  CREATE TABLE plan_prices (
    id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    account_id bigint NOT NULL REFERENCES accounts(id),
    subscription_plan_id bigint NOT NULL REFERENCES subscription_plans(id),
    amount_cents bigint NOT NULL, frequency text NOT NULL, until timestamptz NOT NULL
  );
  CREATE INDEX plan_prices_plan ON plan_prices(account_id, subscription_plan_id, until);
  CREATE FUNCTION plan_prices_kept() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF old.amount_cents IS DISTINCT FROM new.amount_cents OR old.frequency IS DISTINCT FROM new.frequency THEN
      INSERT INTO plan_prices (account_id, subscription_plan_id, amount_cents, frequency, until)
        VALUES (old.account_id, old.id, old.amount_cents, old.frequency, new.updated_at);
    END IF;
    RETURN NULL;
  END $$;
  CREATE TRIGGER plan_prices_kept AFTER UPDATE OF amount_cents, frequency ON subscription_plans
    FOR EACH ROW EXECUTE FUNCTION plan_prices_kept();
  `,
  // 12: as SQLite's 12.
  `
  ALTER TABLE transactions ADD COLUMN reason_code text;
  UPDATE transactions SET reason_code = (
      SELECT e.h->>'reason_code' FROM json_array_elements(transactions.history::json) WITH ORDINALITY AS e(h, n)
      WHERE e.h->>'reason_code' IS NOT NULL ORDER BY e.n DESC LIMIT 1)
    WHERE history LIKE '%"reason_code":"%';
  CREATE INDEX transactions_due ON transactions(due_date, account_id, seq);
  CREATE INDEX transactions_status_due ON transactions(status, account_id, due_date, seq);
  CREATE INDEX transactions_reason ON transactions(account_id, reason_code, due_date, seq) WHERE reason_code IS NOT NULL;
  `,
  // 13: as SQLite's 13.
  `
  ALTER TABLE invoices ADD COLUMN refunded_on timestamptz;
  ALTER TABLE invoice_lines ADD COLUMN credited_line_id bigint REFERENCES invoice_lines(id);
  CREATE INDEX invoice_lines_credited ON invoice_lines(credited_line_id) WHERE credited_line_id IS NOT NULL;
  `,
  // 14: as SQLite's 14: one pg_trgm GIN index over the search text, in place of the five columns'.
  `
  ALTER TABLE customers ADD COLUMN search_text text NOT NULL DEFAULT '';
  DROP INDEX IF EXISTS customers_search;
  CREATE INDEX customers_search ON customers USING gin (search_text gin_trgm_ops);
  `,
  // 15: as SQLite's 15, but on the column itself with its collation, not an expression (lower(),
  // on SQLite, which its folded text makes no difference to): PostgreSQL answers a range's count
  // from such an index alone (an index-only scan), never from an expression's.
  `
  CREATE INDEX customers_search_text ON customers(account_id, search_text COLLATE "C", id);
  `,
  // 16: as SQLite's 16 (here it keeps a report's updates of the state off the two indexes too).
  `
  ALTER TABLE collection_items ADD COLUMN cancelled_at timestamptz;
  UPDATE collection_items SET cancelled_at = updated_at WHERE state = 'cancelled';
  DROP INDEX collection_items_once;
  DROP INDEX collection_items_e2e;
  CREATE UNIQUE INDEX collection_items_once ON collection_items(transaction_id, attempt) WHERE cancelled_at IS NULL;
  CREATE UNIQUE INDEX collection_items_e2e ON collection_items(account_id, end_to_end_id) WHERE cancelled_at IS NULL;
  `,
  // 17: as SQLite's 17 (here a batch of 100,000 took 27.5 -> 13.5 s: each transaction it took was a
  // new row version, with an entry in each of its six indexes).
  `
  DROP INDEX transactions_batching;
  ALTER TABLE transactions DROP COLUMN collection_id;
  `,
  // 18: as SQLite's 18.
  `
  DROP INDEX collection_items_e2e;
  `,
  // 19: a collection item is written once by its batch, then updated by the bank's reports (booked,
  // perhaps returned weeks later). With half of each new page left free, the update of an item is
  // a new version on its own page that no index needs to know of (a heap-only tuple), where it was
  // a version on another page with an entry in each of the table's four indexes. 100,000 bookings
  // imported: about 12% faster; a batch writes twice the pages, about 5% slower. Pages written
  // before keep what they hold.
  `
  ALTER TABLE collection_items SET (fillfactor = 50);
  `,
  // 20: transactions_status_due led by account, not by status. Due work reads the open transactions
  // of a page of subscriptions (subscription_id IN 500 ids AND status IN the open three). Led by
  // status, the index could answer that too, and the planner took it when it guessed few open rows:
  // it read every open transaction of every account and held each against the 500 ids (a year of
  // due work for 10,000 subscriptions, just copied: 69-76 s instead of 49). Led by account, it serves
  // only what names the account (the list by status, a batch's search for what is due), as well.
  `
  DROP INDEX transactions_status_due;
  CREATE INDEX transactions_status_due ON transactions(account_id, status, due_date, seq);
  `,
  // 21: the rows written in bulk by the hundred thousand (events, due work, collection items) no
  // longer have their account, or an item its batch, looked up per row: each check is a query of
  // its own, run by a trigger (about 6 us a row here). The core writes these rows from the rows they
  // follow from, in the same transaction, and neither accounts nor batches are ever deleted. A batch
  // of 100,000 took 0.6-1.1 s less, a bank report's import 0.5-0.9 s less (two to three runs each).
  `
  ALTER TABLE events DROP CONSTRAINT IF EXISTS events_account_id_fkey;
  ALTER TABLE due_work DROP CONSTRAINT IF EXISTS due_work_account_id_fkey;
  ALTER TABLE collection_items DROP CONSTRAINT IF EXISTS collection_items_account_id_fkey;
  ALTER TABLE collection_items DROP CONSTRAINT IF EXISTS collection_items_collection_id_fkey;
  `,
  // 22: as SQLite's 22 (the items of a batch of 100,000: 1.42-1.46 s of the server's time, about
  // 0.4 s of it the entries of a random UUID).
  `
  ALTER TABLE collection_items ADD COLUMN transaction_seq bigint;
  UPDATE collection_items i
    SET transaction_seq = coalesce((SELECT t.seq FROM transactions t WHERE t.id = i.transaction_id), -i.id);
  ALTER TABLE collection_items ALTER COLUMN transaction_seq SET NOT NULL;
  DROP INDEX collection_items_once;
  CREATE UNIQUE INDEX collection_items_once ON collection_items(transaction_seq, attempt) WHERE cancelled_at IS NULL;
  `,
];

/** The tables of the store, parents before children (the order a copy writes them in). */
export const TABLES = [
  'accounts',
  'api_keys',
  'customers',
  'subscription_plans',
  'subscriptions',
  'invoices',
  'invoice_lines',
  'transactions',
  'collections',
  'collection_items',
  'bank_reports',
  'events',
  'webhook_deliveries',
  'notifications',
  'due_work',
  'store_clock',
  'imports',
  'idempotency_keys',
  'plan_prices',
] as const;

/** The column each table is copied in order of, and whose sequence follows the copy (transactions are keyed by a UUID). */
export const KEYS: Partial<Record<(typeof TABLES)[number], string>> = { transactions: 'seq' };
