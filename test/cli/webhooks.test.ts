// Webhooks from the embedded CLI: a command sends the deliveries it caused before it exits; a
// receiver that is down costs the command nothing (exit 0, the delivery stays due, and goes out
// with a later command once due), nor does one that hangs keep the others' from going; a delivery
// written by a server that refuses private targets is refused by the CLI too, however it is
// retried; events list, webhooks list|retry; the webhook secret shown by accounts show, replaced by
// rotate-webhook-secret (rotate-key leaves it), and used to sign.
import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createRouter } from '../../src/lib/api/router.js';
import { fakePrompter } from '../../src/lib/prompts/fake.js';
import { testCore } from '../helpers/store.js';
import { cli, type Cli } from './harness.js';

const json = (text: string) => JSON.parse(text);

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map((s) => new Promise((resolve) => (s.closeAllConnections(), s.close(resolve)))),
  );
});

async function receiver(
  status = 200,
): Promise<{ url: string; got: { headers: IncomingMessage['headers']; body: string }[]; server: Server }> {
  const got: { headers: IncomingMessage['headers']; body: string }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      got.push({ headers: req.headers, body });
      res.writeHead(status).end();
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, got, server };
}

async function seeded(): Promise<Cli> {
  const c = cli();
  expect((await c.run(['plans', 'create', '--name', 'Box', '--amount', '10', '--frequency', 'monthly'])).code).toBe(0);
  await c.seedCustomers(1);
  return c;
}

const signed = (secret: string, r: { headers: IncomingMessage['headers']; body: string }) => {
  const [, t, v1] = /^t=(\d+),v1=([0-9a-f]+)$/.exec(String(r.headers['billing-signature'])) ?? [];
  return v1 === createHmac('sha256', secret).update(`${t}.${r.body}`).digest('hex');
};

describe('webhooks from embedded commands', () => {
  it('a command sends what it caused before it exits, signed with the secret accounts show prints', async () => {
    const c = await seeded();
    const hook = await receiver();
    const made = await c.run([
      'subscriptions',
      'create',
      '--customer-id',
      '1',
      '--subscription-plan-id',
      '1',
      '--subscription-webhook-url',
      `${hook.url}/s`,
      '--json',
    ]);
    expect(made.code, made.stderr).toBe(0);
    const id = json(made.stdout).data.id;
    expect(hook.got.map((r) => [r.headers['billing-event'], JSON.parse(r.body)])).toEqual([
      ['subscription.unverified', { subscription_id: id, status: 'unverified' }],
    ]);
    const secret = json((await c.run(['accounts', 'show', 'default', '--json'])).stdout).webhook_secret;
    expect(secret).toMatch(/^whsec_/);
    expect(signed(secret, hook.got[0])).toBe(true);

    const listed = json((await c.run(['webhooks', 'list', '--json'])).stdout).data;
    expect(
      listed.map((d: { attributes: Record<string, unknown> }) => [
        d.attributes.status,
        d.attributes.attempts,
        d.attributes.last_status,
      ]),
    ).toEqual([['delivered', 1, 200]]);
    const events = json((await c.run(['events', 'list', '--subscription-id', id, '--json'])).stdout).data;
    expect(events.map((e: { attributes: Record<string, unknown> }) => e.attributes.event)).toEqual([
      'subscription.unverified',
    ]);
    expect(events[0].attributes.uid).toBe(listed[0].attributes.event_uid);
  });

  it('a receiver that is down: the command still exits 0, the delivery stays due; retry sends it again with the same delivery id', async () => {
    const c = await seeded();
    const hook = await receiver(503);
    const made = await c.run([
      'subscriptions',
      'create',
      '--customer-id',
      '1',
      '--subscription-plan-id',
      '1',
      '--subscription-webhook-url',
      `${hook.url}/s`,
      '--json',
    ]);
    expect(made.code, made.stderr).toBe(0);
    let [delivery] = json((await c.run(['webhooks', 'list', '--status', 'pending', '--json'])).stdout).data;
    expect([delivery.attributes.attempts, delivery.attributes.last_status, delivery.attributes.last_error]).toEqual([
      1,
      503,
      'answered 503',
    ]);
    expect(json((await c.run(['webhooks', 'list', '--status', 'delivered', '--json'])).stdout).data).toEqual([]);

    const table = await c.run(['webhooks', 'list']);
    expect(table.stdout).toMatch(
      new RegExp(
        `^id\tevent\tstatus\tURL\ttries\tlast answer\n${delivery.id}\tsubscription\\.unverified\tpending\thttp://127\\.0\\.0\\.1:\\d+/s\t1\t503\n$`,
      ),
    );

    // Up again; a retry by hand sends it now, same delivery id.
    const up = await receiver(200);
    hook.server.removeAllListeners('request');
    hook.server.on('request', (req, res) => up.server.emit('request', req, res));
    const retried = await c.run(['webhooks', 'retry', delivery.id]);
    expect(retried.code, retried.stderr).toBe(0);
    expect(retried.stderr).toBe(`queued again webhook delivery ${delivery.id}\n`);
    expect(up.got.map((r) => r.headers['billing-delivery'])).toEqual([delivery.attributes.delivery_id]);
    [delivery] = json((await c.run(['webhooks', 'list', '--json'])).stdout).data;
    expect([delivery.attributes.status, delivery.attributes.attempts]).toEqual(['delivered', 1]);

    const missing = await c.run(['webhooks', 'retry', '999']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no webhook delivery with id 999/);
    expect((await c.run(['webhooks', 'retry', 'abc'])).code).toBe(2);
    expect((await c.run(['webhooks', 'list', '--status', 'lost'])).code).toBe(2);
  });

  it('a hanging receiver keeps no other’s delivery from going out before the command exits', async () => {
    const c = await seeded();
    const waiting: ServerResponse[] = [];
    const hanging = await receiver();
    hanging.server.removeAllListeners('request');
    hanging.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      req.resume();
      req.on('end', () => (hanging.got.push({ headers: req.headers, body: '' }), waiting.push(res)));
    });
    // 20 deliveries due to it, written without sending (no command's exit in between).
    await c.withTransport(async (t) => {
      for (let i = 0; i < 20; i++) {
        const made = await t.request({
          method: 'POST',
          path: '/subscriptions',
          body: {
            data: {
              type: 'subscription',
              attributes: { customer_id: 1, subscription_plan_id: 1, subscription_webhook_url: `${hanging.url}/s` },
            },
          },
        });
        expect(made.status).toBe(201);
      }
    });
    const other = await receiver();
    try {
      const made = await c.run([
        'subscriptions',
        'create',
        '--customer-id',
        '1',
        '--subscription-plan-id',
        '1',
        '--subscription-webhook-url',
        `${other.url}/s`,
      ]);
      expect(made.code, made.stderr).toBe(0);
      expect(other.got).toHaveLength(1);
      expect(hanging.got).toHaveLength(2);
      // Cut short by the command's budget: let go untried, due for the next command or billing serve.
      const pending = json(
        (await c.run(['webhooks', 'list', '--status', 'pending', '--page-size', '100', '--json'])).stdout,
      ).data;
      expect(pending.map((d: { attributes: { attempts: number } }) => d.attributes.attempts)).toEqual(
        Array.from({ length: 20 }, () => 0),
      );
    } finally {
      for (const res of waiting.splice(0)) res.writeHead(200).end();
    }
  });

  it('what a server refusing private targets wrote is refused by the CLI too, retried or not', async () => {
    const c = await seeded();
    const hook = await receiver();
    // The CLI makes the subscription (a URL on this machine: allowed here), and sends its first event.
    const made = await c.run([
      'subscriptions',
      'create',
      '--customer-id',
      '1',
      '--subscription-plan-id',
      '1',
      '--subscription-webhook-url',
      `${hook.url}/s`,
      '--json',
    ]);
    expect(made.code, made.stderr).toBe(0);
    const id = json(made.stdout).data.id;
    expect(hook.got).toHaveLength(1);
    // A server on the same store that refuses private targets (billing serve) cancels it.
    const core = await testCore({ dbPath: c.dbPath });
    const strict = createRouter({
      store: core.store,
      clock: core.clock,
      baseUrl: 'http://127.0.0.1:8080',
      allowPrivateWebhooks: false,
    });
    const cancelled = await strict.handle(
      {
        method: 'PATCH',
        path: `/subscriptions/${id}`,
        body: JSON.stringify({ data: { type: 'subscription', id, attributes: { status: 'cancelled' } } }),
      },
      await core.account(),
    );
    expect(cancelled.status).toBe(200);
    await core.store.close();

    // The next command that changes something sends what is due: the cancellation is refused, not sent.
    expect(
      (await c.run(['customers', 'create', '--first-name', 'Bo', '--last-name', 'Ek', '--email', 'bo@example.com']))
        .code,
    ).toBe(0);
    expect(hook.got).toHaveLength(1);
    const refused = async () =>
      json((await c.run(['webhooks', 'list', '--status', 'pending', '--json'])).stdout).data as {
        id: string;
        attributes: Record<string, unknown>;
      }[];
    let [delivery] = await refused();
    expect([delivery.attributes.event, delivery.attributes.attempts, delivery.attributes.last_error]).toEqual([
      'subscription.cancelled',
      1,
      'refused: the URL names a loopback or private address',
    ]);

    // Retried by hand from the CLI: tried again at once, and refused again.
    const retried = await c.run(['webhooks', 'retry', delivery.id]);
    expect(retried.code, retried.stderr).toBe(0);
    expect(hook.got).toHaveLength(1);
    [delivery] = await refused();
    expect([delivery.attributes.attempts, delivery.attributes.last_error]).toEqual([
      1,
      'refused: the URL names a loopback or private address',
    ]);
  });

  it('rotate-webhook-secret asks first, replaces the secret, and later deliveries are signed with the new one; rotate-key leaves it', async () => {
    const c = await seeded();
    const hook = await receiver();
    const before = json((await c.run(['accounts', 'show', 'default', '--json'])).stdout).webhook_secret;
    expect((await c.run(['accounts', 'rotate-key', 'default', '--yes', '--json'])).code).toBe(0);
    expect(json((await c.run(['accounts', 'show', 'default', '--json'])).stdout).webhook_secret).toBe(before);

    const refused = await c.run(['accounts', 'rotate-webhook-secret', 'default']);
    expect(refused.code).toBe(2);
    expect(json((await c.run(['accounts', 'show', 'default', '--json'])).stdout).webhook_secret).toBe(before);
    const declined = await c.run(['accounts', 'rotate-webhook-secret', 'default'], {
      tty: true,
      prompter: fakePrompter([false]),
    });
    expect(declined.code).not.toBe(0);
    expect(json((await c.run(['accounts', 'show', 'default', '--json'])).stdout).webhook_secret).toBe(before);

    const rotated = await c.run(['accounts', 'rotate-webhook-secret', 'default', '--yes', '--json']);
    expect(rotated.code, rotated.stderr).toBe(0);
    const after = json(rotated.stdout).webhook_secret;
    expect(after).toMatch(/^whsec_/);
    expect(after).not.toBe(before);
    expect(json((await c.run(['accounts', 'show', 'default', '--json'])).stdout).webhook_secret).toBe(after);

    expect(
      (
        await c.run([
          'subscriptions',
          'create',
          '--customer-id',
          '1',
          '--subscription-plan-id',
          '1',
          '--subscription-webhook-url',
          `${hook.url}/s`,
        ])
      ).code,
    ).toBe(0);
    expect(hook.got).toHaveLength(1);
    expect(signed(after, hook.got[0])).toBe(true);
    expect(signed(before, hook.got[0])).toBe(false);
  });
});

describe('customer emails from embedded commands (BILLING_SMTP_URL)', () => {
  it('a command sends the mandate confirmation it caused before it exits; without the setting nothing is sent', async () => {
    const { SMTPServer } = await import('smtp-server');
    const mails: string[] = [];
    const sink = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData(stream, _session, cb) {
        let raw = '';
        stream.on('data', (chunk: Buffer) => (raw += chunk.toString()));
        stream.on('end', () => (mails.push(raw), cb()));
      },
    });
    await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', () => resolve()));
    try {
      const port = (sink.server.address() as AddressInfo).port;
      const c = await seeded();
      expect((await c.run(['subscriptions', 'create', '--customer-id', '1', '--subscription-plan-id', '1'])).code).toBe(
        0,
      );
      expect(mails).toHaveLength(0);
      const made = await c.run(
        ['subscriptions', 'create', '--customer-id', '1', '--subscription-plan-id', '1', '--json'],
        { env: { BILLING_SMTP_URL: `smtp://127.0.0.1:${port}`, BILLING_SMTP_FROM: 'billing@example.com' } },
      );
      expect(made.code, made.stderr).toBe(0);
      // Both confirmations were due (the first kept, unsent): both go now, each once.
      expect(mails).toHaveLength(2);
      expect(
        mails.every((m) => /^From: <?billing@example\.com>?\r?$/im.test(m)),
        mails[0],
      ).toBe(true);
      const listed = json((await c.run(['notifications', 'list', '--json'])).stdout).data;
      expect(
        listed.map((n: { attributes: Record<string, unknown> }) => [n.attributes.kind, typeof n.attributes.sent_at]),
      ).toEqual([
        ['mandate_confirmation', 'string'],
        ['mandate_confirmation', 'string'],
      ]);
      const bad = await c.run(['subscriptions', 'create', '--customer-id', '1', '--subscription-plan-id', '1'], {
        env: { BILLING_SMTP_URL: 'http://mail.example.com' },
      });
      expect(bad.code).toBe(0);
      expect(bad.stderr).toMatch(
        /^warning: BILLING_SMTP_URL must start with smtp:\/\/ or smtps:\/\/, not http:\/\/: give .*; customer emails were not sent\n$/m,
      );
    } finally {
      await new Promise<void>((resolve) => sink.close(() => resolve()));
    }
  });
});
