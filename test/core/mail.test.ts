// Customer notifications out by SMTP, against a local SMTP sink (smtp-server on loopback): sent once,
// in the customer's language; retried after a refusal, given up after the last try; claimed by one
// of two senders at once; old messages left alone; the password never printed.
import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { afterEach, describe, expect, it } from 'vitest';
import { claimMail, MAX_SEND_ATTEMPTS, SEND_DELAYS_S } from '../../src/lib/core/notifications.js';
import { setClock } from '../../src/lib/core/store-clock.js';
import { NOTIFICATION_HEADER, sendDueMail, smtpUrlFromEnv } from '../../src/lib/runtime/mail.js';
import type { NotificationRow } from '../../src/lib/store/schema.js';
import { all } from '../../src/lib/store/unit.js';
import { COLUMNS } from '../../src/lib/output/columns.js';
import { ENGINE } from '../helpers/engine.js';
import { TEST_NOW, testCore, testStore, type TestCore } from '../helpers/store.js';
import { createCustomer, makePlan, send } from '../api/support.js';

interface Received {
  from: string;
  to: string[];
  raw: string;
}

/** An error an SMTP sink answers with: `code` is the SMTP reply code. */
const refusal = (code: number, text: string): Error => Object.assign(new Error(text), { responseCode: code });

const sinks: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(sinks.splice(0).map((s) => s.close()));
});

/** An SMTP server on loopback that keeps what it is given; `refuse` may turn a recipient away. */
async function sink(options: { refuse?: (to: string) => Error | undefined; password?: string; delayMs?: number } = {}) {
  const received: Received[] = [];
  const settings: SMTPServerOptions = {
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    closeTimeout: 1_000,
    onAuth(auth, _session, cb) {
      if (options.password === undefined || auth.password === options.password) cb(null, { user: auth.username });
      else cb(refusal(535, 'Authentication failed'));
    },
    onRcptTo(address, _session, cb) {
      const error = options.refuse?.(address.address);
      if (error) cb(error);
      else cb();
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        setTimeout(cb, options.delayMs ?? 0);
      });
    },
  };
  const server = new SMTPServer(settings);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.server.address() as AddressInfo).port;
  const handle = {
    received,
    port,
    url: `smtp://127.0.0.1:${port}`,
    close: () =>
      Promise.race([
        new Promise<void>((resolve) => server.close(() => resolve())),
        new Promise<void>((resolve) => setTimeout(resolve, 3_000).unref()),
      ]),
  };
  sinks.push(handle);
  return handle;
}

/** The text of a plain message: its body decoded (quoted-printable or base64). */
function bodyOf(raw: string): string {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split);
  const body = raw.slice(split + 4);
  const encoding = /^Content-Transfer-Encoding:\s*(\S+)/im.exec(head)?.[1]?.toLowerCase();
  if (encoding === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (encoding === 'quoted-printable') {
    const bytes = body
      .replace(/=\r?\n/g, '')
      .replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    return Buffer.from(bytes, 'latin1').toString('utf8');
  }
  return body;
}

const header = (raw: string, name: string): string | undefined =>
  new RegExp(`^${name}:\\s*(.*(?:\\r\\n[ \\t].*)*)`, 'im')
    .exec(raw.slice(0, raw.indexOf('\r\n\r\n')))?.[1]
    ?.replace(/\r\n[ \t]+/g, ' ');

const subscriptionBody = (customer: string, plan: number) => ({
  data: { type: 'subscription', attributes: { customer_id: customer, subscription_plan_id: plan } },
});

let customers = 0;

/** A French customer with a subscription whose mandate is not accepted: a mandate confirmation by email is stored. */
async function confirmationFor(core: TestCore, plan?: number): Promise<{ subscription: string; email: string }> {
  const n = ++customers;
  const email = `client${n}@example.fr`;
  const customer = await createCustomer(core, { first_name: 'Jeanne', last_name: `Dupont${n}`, email, language: 'fr' });
  const answer = await send(core, 'POST', '/subscriptions', {
    body: subscriptionBody(customer, plan ?? (await makePlan(core, { name: 'Panier', amount: '20' }))),
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return { subscription: answer.body.data.id as string, email };
}

type Row = Omit<NotificationRow, 'id'> & { id: number };
const notifications = (core: TestCore): Promise<Row[]> =>
  Promise.resolve(core.store.read(() => all((q) => q.selectFrom('notifications').selectAll().orderBy('id'))));

const at = (iso: string, seconds: number): string => new Date(Date.parse(iso) + seconds * 1000).toISOString();

describe(`sendDueMail (${ENGINE})`, () => {
  it('sends a stored mandate confirmation once, in French, to the customer, with the confirmation URL', async () => {
    const core = await testCore();
    const { subscription, email } = await confirmationFor(core);
    const smtp = await sink();
    const lines: string[] = [];
    const report = await sendDueMail(core.store, core.clock, {
      smtpUrl: smtp.url,
      from: 'Facturation <billing@example.com>',
      log: (l) => lines.push(l),
    });
    expect(report).toEqual({ sent: 1, failed: 0, left: false });
    expect(smtp.received).toHaveLength(1);
    const [message] = smtp.received;
    expect(message.to).toEqual([email]);
    expect(message.from).toBe('billing@example.com');
    expect(header(message.raw, 'Subject')).toBe('Veuillez confirmer votre mandat');
    const text = bodyOf(message.raw);
    expect(text).toMatch(new RegExp(`http://127\\.0\\.0\\.1:8080/mandate/accept/${subscription}/[0-9a-f]{64}\\r?\\n`));
    expect(text).toContain('mandat de prélèvement');
    const [row] = await notifications(core);
    expect(header(message.raw, NOTIFICATION_HEADER)).toBe(String(row.id));
    expect(header(message.raw, 'Message-ID')).toMatch(
      new RegExp(`^<notification\\.${row.id}\\.[0-9a-z]+@example\\.com>$`),
    );
    expect(row).toMatchObject({
      sent_at: TEST_NOW,
      next_send_at: null,
      send_attempts: 1,
      send_error: null,
      claimed_until: null,
    });
    expect(lines.join('\n')).toContain(`sent notification ${row.id}`);

    expect(await sendDueMail(core.store, core.clock, { smtpUrl: smtp.url })).toEqual({
      sent: 0,
      failed: 0,
      left: false,
    });
    expect(smtp.received).toHaveLength(1);
    // The operator's view: sent_at, send_attempts and send_error on the notification.
    const [listed] = (await send(core, 'GET', '/notifications')).body.data;
    expect(listed.attributes).toMatchObject({
      sent_at: '2026-11-21T11:00:00+01:00',
      send_attempts: 1,
      send_error: null,
    });
  });

  it('sends nothing for a text message, and sends several due messages in batches', async () => {
    const core = await testCore();
    const sms = await makePlan(core, { name: 'Texto', amount: '5', mandate_authentication_method: 'sms' });
    const customer = await createCustomer(core, {
      first_name: 'Paul',
      last_name: 'Martin',
      email: 'paul@example.fr',
      language: 'fr',
      telephone: '+33612345678',
    });
    expect((await send(core, 'POST', '/subscriptions', { body: subscriptionBody(customer, sms) })).status).toBe(201);
    const plan = await makePlan(core);
    for (let i = 0; i < 3; i++) await confirmationFor(core, plan);
    const smtp = await sink();
    expect(await sendDueMail(core.store, core.clock, { smtpUrl: smtp.url, limit: 2 })).toEqual({
      sent: 3,
      failed: 0,
      left: false,
    });
    expect(smtp.received.map((m) => m.to[0]).sort()).toHaveLength(3);
    const rows = await notifications(core);
    expect(rows.map((r) => [r.channel, r.sent_at === null])).toEqual([
      ['sms', true],
      ['email', false],
      ['email', false],
      ['email', false],
    ]);
    expect(rows[0]).toMatchObject({ send_attempts: 0, next_send_at: null });
  });

  it('stops when its time budget is spent and says work is left', async () => {
    const core = await testCore();
    await confirmationFor(core);
    const smtp = await sink();
    expect(await sendDueMail(core.store, core.clock, { smtpUrl: smtp.url, budgetMs: 0 })).toEqual({
      sent: 0,
      failed: 0,
      left: true,
    });
    expect(smtp.received).toHaveLength(0);
    const [row] = await notifications(core);
    expect(row).toMatchObject({ claimed_until: null, next_send_at: TEST_NOW });
  });

  it('lets the rest of a batch go, still due, when the budget runs out while sending', async () => {
    const core = await testCore();
    const plan = await makePlan(core);
    for (let i = 0; i < 3; i++) await confirmationFor(core, plan);
    const smtp = await sink({ delayMs: 300 });
    expect(await sendDueMail(core.store, core.clock, { smtpUrl: smtp.url, budgetMs: 100, limit: 3 })).toEqual({
      sent: 1,
      failed: 0,
      left: true,
    });
    const rows = await notifications(core);
    expect(rows.map((r) => [r.sent_at === null, r.claimed_until, r.next_send_at])).toEqual([
      [false, null, null],
      [true, null, TEST_NOW],
      [true, null, TEST_NOW],
    ]);
    expect(await sendDueMail(core.store, core.clock, { smtpUrl: smtp.url })).toEqual({
      sent: 2,
      failed: 0,
      left: false,
    });
  });

  it('when the server turns the message away for now, tries again after the first delay, and sends it then', async () => {
    const core = await testCore();
    const { email } = await confirmationFor(core);
    let refusing = true;
    const smtp = await sink({ refuse: () => (refusing ? refusal(451, 'Try again later') : undefined) });
    expect(await sendDueMail(core.store, core.clock, { smtpUrl: smtp.url })).toEqual({
      sent: 0,
      failed: 1,
      left: false,
    });
    let [row] = await notifications(core);
    expect(row).toMatchObject({
      sent_at: null,
      send_attempts: 1,
      next_send_at: at(TEST_NOW, SEND_DELAYS_S[0]),
      claimed_until: null,
    });
    expect(row.send_error).toContain('451');
    // Not due yet.
    refusing = false;
    expect(await sendDueMail(core.store, core.clock, { smtpUrl: smtp.url })).toEqual({
      sent: 0,
      failed: 0,
      left: false,
    });
    const later = at(TEST_NOW, SEND_DELAYS_S[0]);
    expect((await setClock(core, later)).ok).toBe(true);
    expect(await sendDueMail(core.store, core.clock, { smtpUrl: smtp.url })).toEqual({
      sent: 1,
      failed: 0,
      left: false,
    });
    expect(smtp.received.map((m) => m.to)).toEqual([[email]]);
    [row] = await notifications(core);
    expect(row).toMatchObject({ sent_at: later, send_attempts: 2, send_error: null, next_send_at: null });
  });

  it('gives the message up with its error after the last attempt', async () => {
    const core = await testCore();
    await confirmationFor(core);
    const smtp = await sink({ refuse: () => refusal(452, 'Mailbox full') });
    let now = TEST_NOW;
    for (let attempt = 1; attempt <= MAX_SEND_ATTEMPTS; attempt++) {
      expect(await sendDueMail(core.store, core.clock, { smtpUrl: smtp.url })).toEqual({
        sent: 0,
        failed: 1,
        left: false,
      });
      const [row] = await notifications(core);
      expect(row.send_attempts).toBe(attempt);
      if (attempt < MAX_SEND_ATTEMPTS) {
        now = at(now, SEND_DELAYS_S[attempt - 1]);
        expect(row.next_send_at).toBe(now);
        expect((await setClock(core, now)).ok).toBe(true);
      }
    }
    const [row] = await notifications(core);
    expect(row).toMatchObject({
      sent_at: null,
      next_send_at: null,
      send_attempts: MAX_SEND_ATTEMPTS,
      claimed_until: null,
    });
    expect(row.send_error).toMatch(/452.*Mailbox full/);
    expect((await setClock(core, at(now, 86_400))).ok).toBe(true);
    expect(await sendDueMail(core.store, core.clock, { smtpUrl: smtp.url })).toEqual({
      sent: 0,
      failed: 0,
      left: false,
    });
    expect(smtp.received).toHaveLength(0);
  });

  it('gives up at once when the server refuses the recipient for good (5xx)', async () => {
    const core = await testCore();
    await confirmationFor(core);
    const smtp = await sink({ refuse: () => refusal(550, 'No such user') });
    expect(await sendDueMail(core.store, core.clock, { smtpUrl: smtp.url })).toEqual({
      sent: 0,
      failed: 1,
      left: false,
    });
    const [row] = await notifications(core);
    expect(row).toMatchObject({ sent_at: null, send_attempts: 1, next_send_at: null });
    expect(row.send_error).toMatch(/550.*No such user/);
  });

  it('when the server cannot be reached: counts the try, keeps the rest of the batch due, and stops', async () => {
    const core = await testCore();
    const plan = await makePlan(core);
    await confirmationFor(core, plan);
    await confirmationFor(core, plan);
    const smtp = await sink();
    const url = smtp.url;
    await smtp.close();
    expect(await sendDueMail(core.store, core.clock, { smtpUrl: url })).toEqual({ sent: 0, failed: 1, left: false });
    const rows = await notifications(core);
    expect(rows.map((r) => [r.send_attempts, r.next_send_at, r.claimed_until])).toEqual([
      [1, at(TEST_NOW, SEND_DELAYS_S[0]), null],
      [0, TEST_NOW, null],
    ]);
    expect(rows[0].send_error).toMatch(/ECONNREFUSED|connect/i);
  });

  it('senders at once (two stores, as two billing serve instances) send each message once', async () => {
    const core = await testCore();
    const plan = await makePlan(core);
    for (let i = 0; i < 8; i++) await confirmationFor(core, plan);
    const other = await testStore(core.dbPath);
    const smtp = await sink();
    const reports = await Promise.all(
      [core.store, other, core.store, other].map((store) =>
        sendDueMail(store, core.clock, { smtpUrl: smtp.url, limit: 2 }),
      ),
    );
    expect(reports.reduce((n, r) => n + r.sent, 0)).toBe(8);
    expect(reports.reduce((n, r) => n + r.failed, 0)).toBe(0);
    const ids = smtp.received.map((m) => header(m.raw, NOTIFICATION_HEADER));
    expect(ids).toHaveLength(8);
    expect(new Set(ids).size).toBe(8);
    expect((await notifications(core)).every((r) => r.sent_at !== null && r.send_attempts === 1)).toBe(true);
  });

  it('claims made at the same moment never share a message', async () => {
    const core = await testCore();
    const plan = await makePlan(core);
    for (let i = 0; i < 6; i++) await confirmationFor(core, plan);
    const other = await testStore(core.dbPath);
    const realNow = new Date();
    const claim = (store: typeof other, n: number) =>
      Promise.resolve(
        claimMail(store, {
          now: TEST_NOW,
          realNow: realNow.toISOString(),
          until: new Date(realNow.getTime() + 60_000 + n).toISOString(),
          limit: 2,
        }),
      );
    const claims = await Promise.all(
      [core.store, other, core.store, other, core.store, other].map((store, n) => claim(store, n)),
    );
    const ids = claims.flat().map((m) => m.id);
    expect(ids).toHaveLength(6);
    expect(new Set(ids).size).toBe(6);
    // Held: nobody else gets them until the claims lapse.
    expect(await claim(core.store, 9)).toEqual([]);
  });

  it('leaves messages older than a day unsent (SMTP configured late), and sends new ones', async () => {
    const core = await testCore();
    const plan = await makePlan(core);
    await confirmationFor(core, plan);
    expect((await setClock(core, at(TEST_NOW, 86_400 + 60))).ok).toBe(true);
    const smtp = await sink();
    expect(await sendDueMail(core.store, core.clock, { smtpUrl: smtp.url })).toEqual({
      sent: 0,
      failed: 0,
      left: false,
    });
    expect(smtp.received).toHaveLength(0);
    const { email } = await confirmationFor(core, plan);
    expect(await sendDueMail(core.store, core.clock, { smtpUrl: smtp.url })).toEqual({
      sent: 1,
      failed: 0,
      left: false,
    });
    expect(smtp.received.map((m) => m.to)).toEqual([[email]]);
    const rows = await notifications(core);
    expect(rows.map((r) => r.sent_at === null)).toEqual([true, false]);
    expect(rows[0].send_attempts).toBe(0);
  });

  it('logs in with the URL’s credentials and never prints the password, also when the login fails', async () => {
    const core = await testCore();
    const plan = await makePlan(core);
    await confirmationFor(core, plan);
    const password = 's3cr3t:p@ss/word';
    const smtp = await sink({ password });
    const lines: string[] = [];
    const good = `smtp://mailer%40example.com:${encodeURIComponent(password)}@127.0.0.1:${smtp.port}`;
    expect(await sendDueMail(core.store, core.clock, { smtpUrl: good, log: (l) => lines.push(l) })).toMatchObject({
      sent: 1,
    });
    // The sender defaults to the login when it is an address.
    expect(smtp.received[0].from).toBe('mailer@example.com');

    await confirmationFor(core, plan);
    const wrong = 'n0t-the-s3cr3t';
    const bad = `smtp://mailer:${wrong}@127.0.0.1:${smtp.port}`;
    expect(await sendDueMail(core.store, core.clock, { smtpUrl: bad, log: (l) => lines.push(l) })).toEqual({
      sent: 0,
      failed: 1,
      left: false,
    });
    const rows = await notifications(core);
    expect(rows[1].send_error).toMatch(/535|auth/i);
    const printed = [...lines, ...rows.map((r) => r.send_error ?? '')].join('\n');
    for (const secret of [password, encodeURIComponent(password), wrong]) expect(printed).not.toContain(secret);
    expect(printed).toContain('mailer:***@127.0.0.1');
  });
});

describe('smtpUrlFromEnv', () => {
  it('is undefined when unset, and gives smtp:// and smtps:// URLs back', () => {
    expect(smtpUrlFromEnv({})).toBeUndefined();
    expect(smtpUrlFromEnv({ BILLING_SMTP_URL: ' ' })).toBeUndefined();
    expect(smtpUrlFromEnv({ BILLING_SMTP_URL: 'smtp://u:p@mail.example.com:587' })).toBe(
      'smtp://u:p@mail.example.com:587',
    );
    expect(smtpUrlFromEnv({ BILLING_SMTP_URL: 'smtps://mail.example.com' })).toBe('smtps://mail.example.com');
  });

  it('refuses other URLs with a message that does not hold the password', () => {
    for (const value of ['https://user:hunter2@mail.example.com', 'mail.example.com:hunter2', 'smtp://user:hunter2@']) {
      let message = '';
      try {
        smtpUrlFromEnv({ BILLING_SMTP_URL: value });
      } catch (e) {
        message = (e as Error).message;
      }
      expect(message, value).toMatch(/BILLING_SMTP_URL/);
      expect(message).not.toContain('hunter2');
    }
  });
});

describe('notifications list: the sent column', () => {
  const sent = COLUMNS.notification.find((c) => c.header === 'sent')!;
  const of = (attributes: Record<string, unknown>) => sent.value({ type: 'notification', id: '1', attributes });
  it('shows the day it was sent, the tries while it was not, and nothing before any try', () => {
    expect(of({ sent_at: '2026-11-21T11:00:00+01:00', send_attempts: 2, send_error: null })).toBe('2026-11-21');
    expect(of({ sent_at: null, send_attempts: 1, send_error: '451 later' })).toBe('no (1 try)');
    expect(of({ sent_at: null, send_attempts: 6, send_error: '452 full' })).toBe('no (6 tries)');
    expect(of({ sent_at: null, send_attempts: 0, send_error: null })).toBe('');
    expect(sent.hideWhenEmpty).toBe(true);
  });
});
