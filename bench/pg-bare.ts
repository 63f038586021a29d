// The bare server of bench/pg-serve.ts: node:http and a `pg` Pool, nothing else. It runs the very
// statement `billing serve` runs for the same request (the same SQL text), as a named statement
// that each connection parses and plans once (billing's GET does the same; its INSERT is built and
// sent unnamed each time, which is part of what billing costs), and answers a JSON:API document
// of about the same size. No key check, no validation, no transaction around the one statement
// (autocommit): what doing the database work by hand, and nothing more, costs.
// Run by the bench: node --import tsx bench/pg-bare.ts URL PORT POOL_SIZE
import { createServer, type ServerResponse } from 'node:http';
import pg from 'pg';

const [url, portText, poolText] = process.argv.slice(2);
const JSONAPI = 'application/vnd.api+json';

// The GET of one customer, as billing's `customers.find-with-subscriptions` compiles it.
const SELECT_CUSTOMER =
  'select *, (select string_agg("s"."id"::text, \',\') as "ids" from "subscriptions" as "s" where "s"."customer_id" = "customers"."id" and "s"."account_id" = "customers"."account_id") as "subscription_ids" from "customers" where "id" = $1 and "account_id" = $2';

const COLUMNS = [
  'account_id',
  'first_name',
  'last_name',
  'email',
  'gender',
  'middle_name',
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
  'telephone',
  'archived',
  'created_at',
  'updated_at',
];
// POST /customers, as billing's createCustomer compiles it.
const INSERT_CUSTOMER = `insert into "customers" (${COLUMNS.map((c) => `"${c}"`).join(', ')}) values (${COLUMNS.map((_, i) => `$${i + 1}`).join(', ')}) returning *`;

if (!url || !portText) throw new Error('usage: node --import tsx bench/pg-bare.ts URL PORT [POOL_SIZE]');

const pool = new pg.Pool({
  connectionString: url,
  max: Number(poolText ?? 10),
  idleTimeoutMillis: 30_000,
  application_name: 'bare',
});
pool.on('error', () => {});
const account = (await pool.query<{ id: string }>('select id from accounts where is_default')).rows[0].id;
const base = `http://127.0.0.1:${portText}`;

type Row = Record<string, unknown> & { id: string; account_id?: unknown; subscription_ids?: string | null };
const documentOf = (row: Row) => {
  const { id, account_id: _account, subscription_ids, ...attributes } = row;
  const self = `${base}/customers/${id}`;
  const subscriptions = subscription_ids
    ? subscription_ids.split(',').map((s) => ({ type: 'subscription', id: s }))
    : [];
  return JSON.stringify({
    links: { self },
    data: {
      type: 'customer',
      id,
      links: { self },
      attributes,
      relationships: { subscriptions: { links: { related: `${self}/subscriptions` }, data: subscriptions } },
    },
  });
};
const answer = (res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': JSONAPI, 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
};
const failed = (res: ServerResponse) => (error: Error) =>
  answer(res, 500, JSON.stringify({ errors: [{ status: '500', detail: error.message }] }));

const server = createServer((req, res) => {
  if (req.method === 'GET') {
    req.resume();
    const id = Number(/^\/customers\/(\d+)$/.exec(req.url ?? '')?.[1]);
    pool
      .query<Row>({ name: 'customer', text: SELECT_CUSTOMER, values: [id, account] })
      .then(({ rows }) =>
        rows[0] ? answer(res, 200, documentOf(rows[0])) : answer(res, 404, '{"errors":[{"status":"404"}]}'),
      )
      .catch(failed(res));
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const a = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { attributes: Record<string, unknown> } })
      .data.attributes;
    const now = new Date().toISOString();
    const values = [
      account,
      a.first_name,
      a.last_name,
      a.email,
      a.gender ?? null,
      a.middle_name ?? null,
      a.company_name ?? null,
      a.vat_number ?? null,
      a.bank_holder ?? null,
      a.iban ?? null,
      'directdebit',
      null,
      null,
      null,
      a.postalcode ?? null,
      a.house_number ?? null,
      a.house_number_add ?? null,
      a.street ?? null,
      a.city ?? null,
      a.country_iso2 ?? null,
      a.language ?? 'nl',
      a.telephone ?? null,
      false,
      now,
      now,
    ];
    pool
      .query<Row>({ name: 'insert', text: INSERT_CUSTOMER, values })
      .then(({ rows }) => answer(res, 201, documentOf(rows[0]), { location: `${base}/customers/${rows[0].id}` }))
      .catch(failed(res));
  });
});
server.listen(Number(portText), '127.0.0.1');
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => void pool.end().then(() => process.exit(0)));
});
