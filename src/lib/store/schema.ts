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
}

export interface DB {
  accounts: AccountRow;
  api_keys: ApiKeyRow;
  customers: CustomerRow;
  subscription_plans: PlanRow;
  subscriptions: SubscriptionRow;
}
