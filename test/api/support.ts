// Shared pieces of the router tests: raw requests through the router, a clock the test moves,
// and rows put straight into the store to arrange a situation the API cannot make yet.
import { expect } from 'vitest';
import type { ApiResponse } from '../../src/lib/api/http.js';
import type { Clock } from '../../src/lib/core/clock.js';
import type { CoreContext } from '../../src/lib/core/context.js';
import { newConfirmationToken } from '../../src/lib/core/mandate.js';
import { createPlan } from '../../src/lib/core/plan-writes.js';
import { all, get } from '../../src/lib/store/unit.js';
import type { Runtime } from '../../src/lib/runtime/runtime.js';
import { TEST_NOW } from '../helpers/store.js';

export const BASE = 'http://127.0.0.1:8080';
export const VALID_IBAN = 'NL91ABNA0417164300';
export const OTHER_VALID_IBAN = 'DE89370400440532013000';

/** A JSON:API document as a test reads it. */
export type Doc = any;

export interface Answer extends ApiResponse {
  body: Doc;
}

/** A clock that stands still until the test moves it. */
export class TestClock implements Clock {
  ms: number;
  constructor(iso = TEST_NOW) {
    this.ms = Date.parse(iso);
  }
  now(): Date {
    return new Date(this.ms);
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}

/**
 * One request through the router, exactly as HTTP would hand it over. A string body is sent as is
 * (so tests can send broken JSON); anything else is serialised.
 */
export async function send(
  core: Runtime,
  method: string,
  path: string,
  options: { query?: string; body?: unknown } = {},
): Promise<Answer> {
  const body =
    options.body === undefined || typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  return (await core.router.handle({ method, path, query: options.query, body }, await core.account())) as Answer;
}

export const customerBody = (attributes: Record<string, unknown>, id?: string | number) => ({
  data: { type: 'customer', ...(id === undefined ? {} : { id }), attributes },
});

export const minimalCustomer = (n = 1) => ({
  first_name: `First${n}`,
  last_name: `Last${n}`,
  email: `person${n}@example.com`,
});

/** Creates a customer through the router and returns its id; fails the test on anything but 201. */
export async function createCustomer(
  core: Runtime,
  attributes: Record<string, unknown> = minimalCustomer(),
): Promise<string> {
  const answer = await send(core, 'POST', '/customers', { body: customerBody(attributes) });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body.data.id as string;
}

export const context = async (core: Runtime): Promise<CoreContext> => ({
  store: core.store,
  clock: core.clock,
  account: await core.account(),
});

/** Makes a plan as an operator would (plans are read-only over the API) and returns its id. */
export async function makePlan(
  core: Runtime,
  attributes: Record<string, unknown> = { name: 'Gold', amount: '12.50' },
): Promise<number> {
  const result = await createPlan(await context(core), attributes);
  if (!result.ok) throw new Error(`createPlan failed: ${JSON.stringify(result.failure)}`);
  return result.value.id;
}

/** Puts a subscription row straight into the store (the subscription use cases come later). */
export async function insertSubscription(
  core: Runtime,
  customerId: number | string,
  planId: number,
  overrides: { mandate_code?: string; status?: string } = {},
): Promise<number> {
  const now = core.clock.now().toISOString();
  const account = await core.account();
  const row = await core.store.write(() =>
    get((q) =>
      q
        .insertInto('subscriptions')
        .values({
          account_id: account.id,
          customer_id: Number(customerId),
          subscription_plan_id: planId,
          mandate_code: overrides.mandate_code ?? `MNDT-${Math.random().toString(36).slice(2)}`,
          mandate_accepted: 0,
          mandate_accepted_date: null,
          start_date: now,
          status: overrides.status ?? 'unverified',
          cancel_date: null,
          resume_date: null,
          confirmation_sent: 0,
          subscription_webhook_url: null,
          transaction_webhook_url: null,
          success_redirect_url: null,
          metadata: null,
          archived: 0,
          created_at: now,
          updated_at: now,
          cycle_anchor: null,
          next_cycle: 0,
          confirmation_token: newConfirmationToken(),
        })
        .returning('id'),
    ),
  );
  return row!.id;
}

/** Creates a subscription through the router and returns its id; fails the test on anything but 201. */
export async function createSubscription(core: Runtime, attributes: Record<string, unknown>): Promise<string> {
  const answer = await send(core, 'POST', '/subscriptions', {
    body: { data: { type: 'subscription', attributes } },
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body.data.id as string;
}

/** Every customer row of the store, in id order: to show that a refused request changed nothing. */
export const customerRows = async (core: Runtime) =>
  core.store.read(() => all((q) => q.selectFrom('customers').selectAll().orderBy('id')));

export async function totalCustomers(core: Runtime): Promise<number> {
  const answer = await send(core, 'GET', '/customers');
  expect(answer.status).toBe(200);
  return answer.body.meta.total as number;
}

/** A link split into its address without query, and its query parameters, so order does not matter. */
export function link(url: string | null): { at: string; params: Record<string, string> } | null {
  if (url === null) return null;
  const parsed = new URL(url);
  return { at: `${parsed.origin}${parsed.pathname}`, params: Object.fromEntries(parsed.searchParams) };
}

/** The sorted source pointers of an error answer. */
export const pointers = (answer: Answer): string[] =>
  (answer.body.errors as { source?: { pointer?: string } }[]).map((e) => e.source?.pointer ?? '').sort();

/** Asserts a 400 with one `Invalid Attribute` error per given attribute, all with meta.original. */
export function expectInvalidAttributes(answer: Answer, attributes: string[], original: unknown): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(400);
  expect(answer.headers['content-type']).toBe('application/vnd.api+json');
  expect(pointers(answer)).toEqual(attributes.map((a) => `/data/attributes/${a}`).sort());
  for (const error of answer.body.errors) {
    expect(error.status).toBe('400');
    expect(error.title).toBe('Invalid Attribute');
    expect(typeof error.detail).toBe('string');
    expect(error.detail.length).toBeGreaterThan(0);
  }
  expect(answer.body.meta).toEqual({ original });
}

export function expectError(
  answer: Answer,
  status: number,
  title: string,
  source?: { pointer?: string; parameter?: string },
): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  expect(answer.headers['content-type']).toBe('application/vnd.api+json');
  expect(answer.body.errors).toHaveLength(1);
  const [error] = answer.body.errors;
  expect(error.status).toBe(String(status));
  expect(error.title).toBe(title);
  expect(typeof error.detail).toBe('string');
  if (source) expect(error.source).toEqual(source);
  if (status !== 400) expect(answer.body.meta).toBeUndefined();
}
