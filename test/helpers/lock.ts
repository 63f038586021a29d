// Another process holding a SQLite store's write lock (BEGIN IMMEDIATE), as a person's sqlite3
// shell or a long batch job would: a child of its own, never the test process, so the lock is held
// by another pid exactly as in use. It lets go when the test says (or after 60 s, at the latest).
import { fileURLToPath } from 'node:url';
import { startChild, within, type Child } from './children.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const HOLDER = `
const Database = require('better-sqlite3');
const db = new Database(process.argv[1]);
db.exec('BEGIN IMMEDIATE');
const release = () => { db.exec('ROLLBACK'); db.close(); process.exit(0); };
process.on('SIGTERM', release);
setTimeout(release, 60000);
console.log('ready');
`;

export interface LockHolder {
  pid: number;
  /** Rolls the holder's transaction back and waits for it to exit: the lock is free once this resolves. */
  release(): Promise<void>;
  child: Child;
}

/** A child process holding the write lock of the SQLite store at path; resolves once it holds it. */
export async function holdWriteLock(path: string): Promise<LockHolder> {
  const child = startChild(['-e', HOLDER, path], ROOT);
  await within(child.ready, 20_000, 'the lock holder to take the lock');
  return {
    pid: child.process.pid!,
    child,
    async release() {
      child.process.kill('SIGTERM');
      const code = await within(child.exit, 10_000, 'the lock holder to let go');
      if (code !== 0) throw new Error(`the lock holder exited ${code}: ${child.stderr}`);
    },
  };
}
