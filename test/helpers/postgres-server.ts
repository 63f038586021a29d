// A real PostgreSQL server for the tests: Debian's binaries, a fresh cluster in a temporary
// folder, on a loopback port, stopped afterwards. initdb refuses to run as root, so as root the
// cluster belongs to the `postgres` system user. Nothing here skips: a server that cannot start
// fails the run with the reason.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface PostgresServer {
  /** postgres://postgres@127.0.0.1:PORT/DATABASE */
  url(database?: string): string;
  port: number;
  stop(): Promise<void>;
}

/** The newest installed server's bin folder (Debian: /usr/lib/postgresql/<major>/bin). */
export function postgresBin(): string {
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root)
    ? readdirSync(root).filter((name) => existsSync(join(root, name, 'bin', 'postgres')))
    : [];
  if (majors.length === 0)
    throw new Error(`no PostgreSQL server under ${root}: install it (apt-get install postgresql), as .ci/run does`);
  majors.sort((a, b) => Number(b) - Number(a));
  return join(root, majors[0], 'bin');
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const isRoot = () => process.getuid?.() === 0;
const asServerUser = (command: string, args: string[]) =>
  isRoot() ? { command: 'runuser', args: ['-u', 'postgres', '--', command, ...args] } : { command, args };

/**
 * Starts a cluster. With `password`, the postgres user needs it (scram-sha-256 over TCP), to test
 * credentials; without, any local connection is trusted.
 */
export async function startPostgres(
  settings: Record<string, string> = {},
  access: { password?: string } = {},
): Promise<PostgresServer> {
  const bin = postgresBin();
  const dir = mkdtempSync(join(tmpdir(), 'billing-pg-'));
  chmodSync(dir, 0o755);
  if (isRoot()) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(dir, uid, gid);
  }
  const data = join(dir, 'data');
  const auth = ['-A', 'trust'];
  if (access.password !== undefined) {
    const pwfile = join(dir, 'pwfile');
    writeFileSync(pwfile, `${access.password}\n`, { mode: 0o644 });
    auth.splice(0, 2, '--auth-host=scram-sha-256', '--auth-local=trust', `--pwfile=${pwfile}`);
  }
  const init = asServerUser(join(bin, 'initdb'), [
    '-D',
    data,
    ...auth,
    '-U',
    'postgres',
    '-E',
    'UTF8',
    '--locale=C',
    '--no-sync',
  ]);
  try {
    execFileSync(init.command, init.args, { stdio: 'pipe' });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed: ${(error as { stderr?: Buffer }).stderr?.toString() ?? String(error)}`, {
      cause: error,
    });
  }
  const port = await freePort();
  const options = {
    listen_addresses: '127.0.0.1',
    port: String(port),
    unix_socket_directories: dir,
    max_connections: '400',
    // A test server: durability is not what is tested, speed is welcome.
    fsync: 'off',
    synchronous_commit: 'off',
    full_page_writes: 'off',
    ...settings,
  };
  const run = asServerUser(join(bin, 'postgres'), [
    '-D',
    data,
    ...Object.entries(options).flatMap(([k, v]) => ['-c', `${k}=${v}`]),
  ]);
  const child: ChildProcess = spawn(run.command, run.args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr!.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const ready = join(bin, 'pg_isready');
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`PostgreSQL exited at start:\n${log}`);
    }
    try {
      execFileSync(ready, ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-q'], { stdio: 'ignore' });
      break;
    } catch {
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        rmSync(dir, { recursive: true, force: true });
        throw new Error(`PostgreSQL did not accept connections within 30 s:\n${log}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  let stopped: Promise<void> | undefined;
  return {
    port,
    url: (database = 'postgres') =>
      `postgres://postgres${access.password === undefined ? '' : `:${encodeURIComponent(access.password)}`}@127.0.0.1:${port}/${database}`,
    stop() {
      stopped ??= (async () => {
        // pg_ctl, not a signal to the child: as root the child is runuser, which does not pass signals on.
        const stop = asServerUser(join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', '-t', '20', 'stop']);
        try {
          execFileSync(stop.command, stop.args, { stdio: 'ignore' });
        } catch {
          child.kill('SIGKILL');
        }
        await exited;
        rmSync(dir, { recursive: true, force: true });
      })();
      return stopped;
    },
  };
}
