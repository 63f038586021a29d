// TLS to PostgreSQL through the URL's sslmode, as libpq reads it: require encrypts, verify-full also
// checks the server's certificate against sslrootcert and its name.
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/lib/store/store.js';
import { get } from '../../src/lib/store/unit.js';
import { sql } from 'kysely';
import { ENGINE } from '../helpers/engine.js';
import { startPostgres, type PostgresServer } from '../helpers/postgres-server.js';
import { tempDir } from '../helpers/store.js';

/** A self-signed certificate for 127.0.0.1 (key and certificate files), readable by the server. */
function certificate(dir: string, name: string): { cert: string; key: string } {
  const cert = join(dir, `${name}.crt`);
  const key = join(dir, `${name}.key`);
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '2',
      '-subj',
      `/CN=${name}`,
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString());
    chownSync(key, uid, gid);
    chownSync(cert, uid, gid);
  }
  return { cert, key };
}

describe.runIf(ENGINE === 'postgres')('TLS through sslmode (PostgreSQL only)', () => {
  let server: PostgresServer;
  let dir: string;
  let stranger: string;
  let root: string;
  const stores: Store[] = [];
  beforeAll(async () => {
    dir = tempDir();
    chmodSync(dir, 0o755); // the server runs as the postgres user
    const own = certificate(dir, 'billing-test-server');
    stranger = certificate(dir, 'someone-else').cert;
    server = await startPostgres({ ssl: 'on', ssl_cert_file: own.cert, ssl_key_file: own.key });
    root = own.cert;
  });
  afterAll(async () => {
    for (const store of stores) await store.close();
    await server?.stop();
  });

  const encrypted = async (query: string) => {
    const store = await openStore(`${server.url()}?${query}`, { poolSize: 1 });
    stores.push(store);
    const row = await store.read(() =>
      get((q) =>
        q.selectNoFrom(sql<number>`(select ssl::int from pg_stat_ssl where pid = pg_backend_pid())`.as('ssl')),
      ),
    );
    return row?.ssl;
  };

  it('encrypts with sslmode=require, without checking the certificate', async () => {
    expect(await encrypted('sslmode=require')).toBe(1);
  });

  it('encrypts and verifies with sslmode=verify-full and the server’s certificate as sslrootcert', async () => {
    expect(await encrypted(`sslmode=verify-full&sslrootcert=${encodeURIComponent(root)}`)).toBe(1);
  });

  it('refuses a server whose certificate the given root does not sign, naming the database', async () => {
    const refused = openStore(`${server.url()}?sslmode=verify-full&sslrootcert=${encodeURIComponent(stranger)}`, {
      poolSize: 1,
    });
    await expect(refused).rejects.toThrow(
      `cannot open database "postgres" on 127.0.0.1:${server.port}: self-signed certificate`,
    );
  });

  it('does not encrypt with sslmode=disable', async () => {
    expect(await encrypted('sslmode=disable')).toBe(0);
  });
});
