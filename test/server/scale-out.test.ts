// Scale-out on PostgreSQL: two `billing serve` processes (the built bin) on one database, writes
// sent through both at once. Every acknowledged write is there, exactly once, and readable through
// the other instance at once; a key rotated by the CLI is refused by both on the very next
// request; SIGTERM stops each instance with exit 0 and its pool closed.
// Runs in the `sqlite` project only: it is about PostgreSQL by nature, not a suite run per engine.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JSONAPI } from '../../src/lib/api/http.js';
import { BIN, runCli } from '../helpers/cli.js';
import { freshPostgresUrl, postgresAdminUrl } from '../helpers/engine.js';

const BUNDLE = fileURLToPath(new URL('../../dist/billing.cjs', import.meta.url));
const CREATES_PER_INSTANCE = 50;

interface Instance {
  name: string;
  child: ChildProcess;
  url: string;
  stderr: () => string;
  exited: Promise<number | null>;
}

interface Answer {
  status: number;
  json: any;
}

/** `billing --db URL serve --port 0` as a child process; resolves once its "listening on" line names the port. */
function startInstance(name: string, db: string, env: Record<string, string>): Promise<Instance> {
  const child = spawn(process.execPath, [BIN, '--db', db, 'serve', '--port', '0'], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${name}: no "listening on" line within 15 s; stderr: ${stderr}`)),
      15_000,
    );
    const check = () => {
      const match = /listening on (http:\/\/127\.0\.0\.1:(\d+))/.exec(stderr);
      if (!match) return;
      clearTimeout(timer);
      child.stderr.off('data', check);
      resolve({ name, child, url: match[1], stderr: () => stderr, exited });
    };
    child.stderr.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code} before listening; stderr: ${stderr}`));
    });
  });
}

async function call(instance: Instance, method: string, path: string, key: string, body?: unknown): Promise<Answer> {
  const headers: Record<string, string> = { 'x-authorization': key };
  if (body !== undefined) headers['content-type'] = JSONAPI;
  const response = await fetch(`${instance.url}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : undefined };
}

/**
 * What the server knows of a database's sessions: those open now from clients named `billing` (the
 * store's application_name), and how many sessions ever ended by the client just going away
 * without saying goodbye (pg_stat_database.sessions_abandoned: a process that exits with its pool
 * still open; a pool that is closed ends each connection with a Terminate message instead).
 */
async function sessions(database: string): Promise<{ billing: number; abandoned: number }> {
  const admin = new pg.Client({ connectionString: postgresAdminUrl() });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ billing: number; abandoned: number }>(
      `SELECT (SELECT count(*)::int FROM pg_stat_activity WHERE datname = $1 AND application_name = 'billing') AS billing,
              (SELECT sessions_abandoned::int FROM pg_stat_database WHERE datname = $1) AS abandoned`,
      [database],
    );
    return rows[0];
  } finally {
    await admin.end();
  }
}

describe('billing serve on PostgreSQL: two instances, one database', () => {
  let db: string;
  let database: string;
  let configDir: string;
  let key: string;
  let a: Instance;
  let b: Instance;
  const instances: Instance[] = [];
  const other = (instance: Instance) => (instance === a ? b : a);
  /** Every customer a 201 acknowledged: id, the instance that made it, and its last name. */
  const created: { id: string; via: Instance; lastName: string }[] = [];

  beforeAll(async () => {
    if (!existsSync(BUNDLE)) throw new Error(`no ${BUNDLE}: run \`npm run build\` first`);
    db = await freshPostgresUrl();
    database = new URL(db).pathname.slice(1);
    configDir = mkdtempSync(join(tmpdir(), 'billing-scale-out-'));
    const rotated = await runCli(['--db', db, 'accounts', 'rotate-key', 'default', '--json'], {
      env: { BILLING_CONFIG_DIR: configDir },
    });
    expect(rotated.code, rotated.stderr).toBe(0);
    key = JSON.parse(rotated.stdout).api_key;
    // Both at once: they also race to migrate the new database (an advisory lock lets one do it).
    const started = await Promise.allSettled([
      startInstance('A', db, { BILLING_CONFIG_DIR: configDir }),
      startInstance('B', db, { BILLING_CONFIG_DIR: configDir }),
    ]);
    for (const result of started) if (result.status === 'fulfilled') instances.push(result.value);
    for (const result of started) if (result.status === 'rejected') throw result.reason;
    [a, b] = instances;
  }, 60_000);

  afterAll(async () => {
    try {
      const before = await sessions(database);
      if (instances.length)
        expect(before.billing, 'the instances hold pooled connections before they stop').toBeGreaterThan(0);
      // SIGTERM: each finishes what is in flight, closes its pool, and exits 0.
      const codes = await Promise.all(
        instances.map(async (instance) => {
          const killer = setTimeout(() => instance.child.kill('SIGKILL'), 20_000);
          instance.child.kill('SIGTERM');
          const code = await instance.exited;
          clearTimeout(killer);
          return code;
        }),
      );
      for (const [i, instance] of instances.entries()) {
        expect(codes[i], `${instance.name} exit code; stderr: ${instance.stderr().slice(-2000)}`).toBe(0);
        expect(instance.stderr()).toContain('billing serve: stopped');
      }
      // Asked once, right after both exited, no waiting: a pool closed on the way out has ended
      // its connections (pg's end() waits until the server has closed each one). And none of them
      // was abandoned: a process that exited with its pool open leaves no connection behind for
      // long either (the server sees the sockets close), but counts as abandoned sessions.
      const after = await sessions(database);
      expect(after.billing, "connections named 'billing' left after both exited").toBe(0);
      expect(
        after.abandoned - before.abandoned,
        'sessions abandoned by the instances (exited without closing their pool)',
      ).toBe(0);
    } finally {
      for (const instance of instances)
        if (instance.child.exitCode === null && instance.child.signalCode === null) instance.child.kill('SIGKILL');
      if (configDir) rmSync(configDir, { recursive: true, force: true });
    }
  }, 60_000);

  it('loses no create made through both at once: each 201 readable through the other instance at once, no id twice, the total the number of 201s', async () => {
    const statuses: number[] = [];
    const readBack: { id: string; status: number; lastName?: string }[] = [];
    await Promise.all(
      Array.from({ length: 2 * CREATES_PER_INSTANCE }, async (_, n) => {
        const via = n % 2 === 0 ? a : b;
        const lastName = `Jansen ${n}`;
        const answer = await call(via, 'POST', '/customers', key, {
          data: {
            type: 'customer',
            attributes: { first_name: 'Jan', last_name: lastName, email: `jan${n}@example.com` },
          },
        });
        statuses.push(answer.status);
        if (answer.status !== 201) return;
        const id: string = answer.json.data.id;
        created.push({ id, via, lastName });
        // Acknowledged: the other instance, on its own connections, must see it now.
        const seen = await call(other(via), 'GET', `/customers/${id}`, key);
        readBack.push({ id, status: seen.status, lastName: seen.json?.data?.attributes?.last_name });
      }),
    );

    expect(
      statuses.filter((s) => s !== 201),
      'every create acknowledged',
    ).toEqual([]);
    expect(created).toHaveLength(2 * CREATES_PER_INSTANCE);
    expect(new Set(created.map((c) => c.id)).size, 'no id given twice').toBe(created.length);
    expect(
      readBack.filter((r) => r.status !== 200),
      'every 201 readable through the other instance at once',
    ).toEqual([]);
    for (const r of readBack) expect(r.lastName).toBe(created.find((c) => c.id === r.id)!.lastName);

    // The same set through either door: as many customers as 201s, exactly the ids acknowledged.
    for (const instance of [a, b]) {
      const list = await call(instance, 'GET', `/customers?page[size]=100`, key);
      expect(list.status).toBe(200);
      expect(list.json.meta.total).toBe(created.length);
      expect(list.json.data.map((c: { id: string }) => c.id).sort()).toEqual(created.map((c) => c.id).sort());
    }
  }, 60_000);

  it('loses no update: concurrent PATCHes of the same customers through both, each acknowledged change readable through the other at once', async () => {
    expect(created.length).toBeGreaterThan(0);
    const problems: string[] = [];
    // Round 1, different attributes at once: A renames, B moves. Both changes must survive.
    // Round 2, the same attribute at once, different values: one wins, and both instances agree which.
    for (const round of [1, 2]) {
      await Promise.all(
        created.flatMap(({ id }) =>
          [a, b].map(async (via) => {
            const attributes =
              round === 1
                ? via === a
                  ? { first_name: `Anna ${id}` }
                  : { city: `Utrecht ${id}` }
                : { telephone: `+31 6 ${via.name === 'A' ? '1' : '2'}${id.padStart(7, '0')}` };
            const answer = await call(via, 'PATCH', `/customers/${id}`, key, {
              data: { type: 'customer', id, attributes },
            });
            if (answer.status !== 200)
              return void problems.push(`PATCH ${id} via ${via.name}: ${answer.status} ${JSON.stringify(answer.json)}`);
            const seen = await call(other(via), 'GET', `/customers/${id}`, key);
            const [name, value] = Object.entries(attributes)[0];
            const concurrent = round === 2 ? `+31 6 ${via.name === 'A' ? '2' : '1'}${id.padStart(7, '0')}` : undefined;
            // Round 1: nobody else writes this attribute, so the other instance shows exactly this value.
            // Round 2: this value, or the concurrent PATCH's if that one committed later.
            const got = seen.json?.data?.attributes?.[name];
            if (seen.status !== 200 || (got !== value && got !== concurrent))
              problems.push(
                `${id} via ${other(via).name} after PATCH via ${via.name}: ${seen.status} ${name}=${got}, expected ${value}`,
              );
          }),
        ),
      );
    }
    expect(problems, `A: ${a.stderr().slice(-1500)}\nB: ${b.stderr().slice(-1500)}`).toEqual([]);

    for (const { id } of created) {
      const [viaA, viaB] = await Promise.all([
        call(a, 'GET', `/customers/${id}`, key),
        call(b, 'GET', `/customers/${id}`, key),
      ]);
      expect(viaA.json.data.attributes).toEqual(viaB.json.data.attributes);
      const { first_name, city, telephone, last_name } = viaA.json.data.attributes;
      expect({ first_name, city }).toEqual({ first_name: `Anna ${id}`, city: `Utrecht ${id}` });
      expect([`+31 6 1${id.padStart(7, '0')}`, `+31 6 2${id.padStart(7, '0')}`]).toContain(telephone);
      expect(last_name).toBe(created.find((c) => c.id === id)!.lastName);
    }
    const list = await call(b, 'GET', '/customers?page[size]=1', key);
    expect(list.json.meta.total).toBe(created.length);
  }, 60_000);

  it('refuses a key rotated through the CLI on the very next request to either instance, and takes the new one on both', async () => {
    // Both instances have just answered with this key: anything they kept of it is warm.
    const path = `/customers/${created[0].id}`;
    for (const instance of [a, b]) expect((await call(instance, 'GET', path, key)).status).toBe(200);
    // The account has a key: replacing it needs --yes without a terminal.
    const rotated = await runCli(['--db', db, 'accounts', 'rotate-key', 'default', '--json', '--yes'], {
      env: { BILLING_CONFIG_DIR: configDir },
    });
    expect(rotated.code, rotated.stderr).toBe(0);
    const fresh: string = JSON.parse(rotated.stdout).api_key;
    expect(fresh).not.toBe(key);

    // b's first request after the rotation is one its handler answers without reading a row (a
    // refused parameter): the key is checked all the same.
    const badParameter = await call(b, 'GET', '/customers?page[size]=0', key);
    expect(badParameter.status, 'old key, bad parameter, on b').toBe(401);
    for (const instance of [a, b]) {
      const refused = await call(instance, 'GET', path, key);
      expect(refused.status, `old key on ${instance.name}`).toBe(401);
      expect(refused.json.errors[0].title).toBe('Unauthorized');
      const write = await call(instance, 'POST', '/customers', key, {
        data: { type: 'customer', attributes: { first_name: 'Old', last_name: 'Key', email: 'old@example.com' } },
      });
      expect(write.status, `old key writing on ${instance.name}`).toBe(401);
    }
    for (const instance of [a, b]) {
      const accepted = await call(instance, 'GET', '/customers?page[size]=1', fresh);
      expect(accepted.status, `new key on ${instance.name}`).toBe(200);
      expect(accepted.json.meta.total, 'nothing written with the old key').toBe(created.length);
    }
  }, 60_000);
});
