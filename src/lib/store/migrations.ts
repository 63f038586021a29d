// Migrations run on open, inside one write transaction, and are recorded in PRAGMA user_version.
// Append new entries; never edit one that has shipped.
export const migrations: string[] = [
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
];
