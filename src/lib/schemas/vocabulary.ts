// Enumerations and output fields of the resources. Kept free of zod so the read path stays light.
export const GENDERS = ['m', 'f'] as const;
export const LANGUAGES = ['nl', 'en', 'nl-be', 'de', 'fr'] as const;
export const PAYMENT_METHODS = ['directdebit', 'creditcard'] as const;

export const PLAN_STATUSES = ['active', 'inactive'] as const;
export const FREQUENCIES = ['weekly', 'monthly', 'quarterly', 'half_yearly', 'yearly', 'once'] as const;
export const MANDATE_METHODS = ['email', 'sms', 'ideal', 'online_payment', 'first_payment'] as const;

export const SUBSCRIPTION_STATUSES = ['unverified', 'active', 'paused', 'cancelled'] as const;

export type ResourceType =
  | 'customer'
  | 'subscription'
  | 'subscription-plan'
  | 'transaction'
  | 'notification'
  | 'invoice'
  | 'invoice-line'
  | 'event'
  | 'webhook-delivery'
  | 'collection'
  | 'bank-report';

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;

/** The most resources one page of a list may hold (page[size]); the API refuses more, and clients ask for at most this. */
export const MAX_PAGE_SIZE = 100;

/** Output attributes per type, in the order the hosted service sends them. */
export const ATTRIBUTES: Record<ResourceType, readonly string[]> = {
  customer: [
    'gender',
    'first_name',
    'middle_name',
    'last_name',
    'company_name',
    'vat_number',
    'bank_holder',
    'iban',
    'payment_method',
    'bank_verification_method',
    'card_holder',
    'card_number',
    'postalcode',
    'house_number',
    'house_number_add',
    'street',
    'city',
    'country_iso2',
    'language',
    'email',
    'telephone',
    'archived',
    'created_at',
    'updated_at',
  ],
  'subscription-plan': [
    'name',
    'description',
    'start_date',
    'status',
    'mandate_authentication_method',
    'send_invoice',
    'storno_retries',
    'terms',
    'archived',
    'amount',
    'frequency',
    'created_at',
    'updated_at',
  ],
  subscription: [
    'mandate_code',
    'mandate_accepted',
    'mandate_accepted_date',
    'start_date',
    'status',
    'cancel_date',
    'resume_date',
    'confirmation_page',
    'confirmation_sent',
    'subscription_webhook_url',
    'transaction_webhook_url',
    'success_redirect_url',
    'metadata',
    'archived',
    'created_at',
    'updated_at',
  ],
  transaction: [
    'status',
    'scheduled_on',
    'due_date',
    'amount',
    'canceled_on',
    'webhook_url',
    'payment_method',
    'description',
    'history',
  ],
  notification: ['kind', 'channel', 'language', 'recipient', 'subject', 'body', 'created_at'],
  invoice: [
    'status',
    'reference',
    'amount_excl',
    'amount_incl',
    'tax_rates',
    'tax_amount',
    'invoice_date',
    'transaction_date',
    'hosted_invoice_url',
    'send_email',
    'refunded_on',
    'created_at',
    'updated_at',
  ],
  'invoice-line': [
    'description',
    'amount_excl',
    'amount_incl',
    'tax_rate',
    'tax_amount',
    'tax_included',
    'quantity',
    'created_at',
    'updated_at',
  ],
  event: ['event', 'subscription_id', 'transaction_id', 'status', 'occurred_at', 'uid'],
  'webhook-delivery': [
    'event',
    'event_uid',
    'delivery_id',
    'url',
    'body',
    'status',
    'attempts',
    'next_attempt_at',
    'last_status',
    'last_error',
    'delivered_at',
    'created_at',
    'updated_at',
  ],
  collection: [
    'status',
    'message_id',
    'due_until',
    'transactions',
    'control_sum',
    'blocks',
    'outcomes',
    'creditor',
    'exported_at',
    'cancelled_at',
    'created_at',
    'updated_at',
  ],
  'bank-report': [
    'format',
    'message_id',
    'entries',
    'booked',
    'rejected',
    'returned',
    'unchanged',
    'unmatched',
    'unmatched_entries',
    'created_at',
  ],
};

/** Relationships per type, as the resource objects carry them. */
export const RELATIONSHIPS: Record<ResourceType, readonly string[]> = {
  customer: ['subscriptions'],
  'subscription-plan': ['subscriptions'],
  subscription: ['subscription-plan', 'customer', 'transactions'],
  transaction: [],
  notification: ['customer', 'subscription'],
  invoice: ['subscription', 'customer', 'invoice-lines', 'transaction', 'original-invoice'],
  'invoice-line': [],
  event: [],
  'webhook-delivery': [],
  collection: [],
  'bank-report': [],
};

/**
 * The names fields[TYPE] may list: JSON:API sparse fieldsets cover attributes and relationships
 * alike (fields[customer]=first_name leaves the relationships out; =first_name,subscriptions keeps one).
 */
export const FIELDS: Record<ResourceType, readonly string[]> = {
  customer: [...ATTRIBUTES.customer, ...RELATIONSHIPS.customer],
  'subscription-plan': [...ATTRIBUTES['subscription-plan'], ...RELATIONSHIPS['subscription-plan']],
  subscription: [...ATTRIBUTES.subscription, ...RELATIONSHIPS.subscription],
  transaction: ATTRIBUTES.transaction,
  notification: [...ATTRIBUTES.notification, ...RELATIONSHIPS.notification],
  invoice: [...ATTRIBUTES.invoice, ...RELATIONSHIPS.invoice],
  'invoice-line': ATTRIBUTES['invoice-line'],
  event: ATTRIBUTES.event,
  'webhook-delivery': ATTRIBUTES['webhook-delivery'],
  collection: ATTRIBUTES.collection,
  'bank-report': ATTRIBUTES['bank-report'],
};

/**
 * The fields a collection can be sorted by: `sort=field` ascending, `sort=-field` descending; ties
 * go by id in the same direction, so pages are stable. Without sort, a collection is in ascending id.
 */
export const CUSTOMER_SORT_FIELDS = ['id', 'created_at', 'last_name', 'email'] as const;
export const PLAN_SORT_FIELDS = ['id', 'created_at'] as const;
export type CustomerSortField = (typeof CUSTOMER_SORT_FIELDS)[number];
export type PlanSortField = (typeof PLAN_SORT_FIELDS)[number];

export const TRANSACTION_STATUSES = [
  'queued',
  'scheduled',
  'succeeded',
  'fulfilled',
  'charged_back',
  'failed',
  'rescheduled',
  'canceled',
] as const;
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number];
/** Not yet collected: what a pause or a cancel cancels, and what DELETE /transactions may cancel. */
export const OPEN_TRANSACTION_STATUSES: readonly TransactionStatus[] = ['queued', 'scheduled', 'rescheduled'];
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];
export const SUBSCRIPTION_SORT_FIELDS = ['id', 'created_at', 'start_date'] as const;
export type SubscriptionSortField = (typeof SUBSCRIPTION_SORT_FIELDS)[number];
export const TRANSACTION_SORT_FIELDS = ['due_date', 'created_at'] as const;
export type TransactionSortField = (typeof TRANSACTION_SORT_FIELDS)[number];
/** Outcomes an operator may set for a transaction of the embedded store (it collects by simulation). */
export const OUTCOMES = ['charged_back', 'failed'] as const;
export type Outcome = (typeof OUTCOMES)[number];

/**
 * draft (editable) -> open (finalised, awaiting payment) -> paid; completed (finalised at zero or
 * less: nothing to collect); charged_back (its collection failed for good); cancelled (its
 * collection was cancelled).
 */
export const INVOICE_STATUSES = ['draft', 'open', 'paid', 'charged_back', 'cancelled', 'completed'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];
export const INVOICE_SORT_FIELDS = ['id', 'created_at', 'invoice_date'] as const;
export type InvoiceSortField = (typeof INVOICE_SORT_FIELDS)[number];
