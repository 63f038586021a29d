// Who holds a SQLite store's write lock. In WAL mode it is a POSIX lock on one byte of the store's
// -shm file (SQLite's unix VFS), and Linux lists POSIX locks in /proc/locks with the holder's pid.
import { readFileSync, statSync } from 'node:fs';

/** The -shm byte whose exclusive lock is WAL's write lock: UNIX_SHM_BASE (120) + WAL_WRITE_LOCK (0). */
const WAL_WRITE_LOCK_BYTE = 120n;

/**
 * `pid 4242 (sqlite3)` for the process holding the write lock of the store at `path`, or undefined
 * when it cannot be told for certain: not Linux, no -shm file, the lock gone meanwhile, or a holder
 * in another pid namespace (listed as pid 0). Never a guess.
 */
export function walWriteLockHolder(path: string): string | undefined {
  try {
    const shm = statSync(`${path}-shm`, { bigint: true });
    // st_dev as the kernel encodes it for user space; /proc/locks prints MAJOR:MINOR:INODE, the first two in hex.
    const major = (shm.dev >> 8n) & 0xfffn;
    const minor = (shm.dev & 0xffn) | ((shm.dev >> 12n) & 0xfff00n);
    for (const line of readFileSync('/proc/locks', 'utf8').split('\n')) {
      // "3: POSIX  ADVISORY  WRITE 4242 fe:00:2146468 120 120"; a waiter's line has "->" after the number.
      const field = line.trim().split(/\s+/);
      if (field[1] !== 'POSIX' || field[3] !== 'WRITE') continue;
      const [maj, min, inode] = (field[5] ?? '').split(':');
      if (inode === undefined || BigInt(inode) !== shm.ino) continue;
      if (BigInt(`0x${maj}`) !== major || BigInt(`0x${min}`) !== minor) continue;
      const [start, end] = [BigInt(field[6]), field[7] === 'EOF' ? undefined : BigInt(field[7])];
      if (start > WAL_WRITE_LOCK_BYTE || (end !== undefined && end < WAL_WRITE_LOCK_BYTE)) continue;
      const pid = Number(field[4]);
      if (!(pid > 0)) return undefined;
      let name = '';
      try {
        name = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
      } catch {
        // Gone, or not ours to read: the pid alone is still what held the lock.
      }
      return name ? `pid ${pid} (${name})` : `pid ${pid}`;
    }
  } catch {
    // No /proc (not Linux), no -shm file: nothing certain to say.
  }
  return undefined;
}
