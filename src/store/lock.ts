/**
 * One `trawl serve` per SQLite file. The embedded scheduler treats work left in hand at start as
 * orphaned (nothing else can hold it), which is only true when no other process is using the
 * file — so that is enforced: a lock file beside the database holds the owner's pid. A lock whose
 * process is gone (SIGKILL, crash) is taken over; a live one stops the second process with a
 * message saying what to do instead.
 */
import { closeSync, openSync, readFileSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';

export interface DataDirLock {
  path: string;
  release(): void;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
};

export function lockSqliteFile(dbPath: string): DataDirLock {
  const path = `${dbPath}.lock`;
  const mine = `${process.pid}\n`;
  for (let tries = 0; tries < 3; tries++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, mine);
      closeSync(fd);
      return { path, release: () => releaseIfMine(path, mine) };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const owner = Number.parseInt(readOr(path), 10);
    if (Number.isInteger(owner) && owner > 0 && alive(owner)) {
      throw new Error(
        `another trawl process (pid ${owner}) is serving ${dbPath}; one process per SQLite file runs the scheduler — stop it, or run several processes on PostgreSQL (DATABASE_URL) and Redis (REDIS_URL)`,
      );
    }
    // Left by a process that died: take it over (re-checked by the exclusive create on the next try).
    try {
      unlinkSync(path);
    } catch {
      /* another starter removed it first */
    }
  }
  throw new Error(`could not take the lock ${path}`);
}

function readOr(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

function releaseIfMine(path: string, mine: string): void {
  if (readOr(path) !== mine) return;
  try {
    unlinkSync(path);
  } catch {
    /* already gone */
  }
}

/** For tests: write a lock as if another process held it. */
export const writeLockForTest = (dbPath: string, pid: number) => writeFileSync(`${dbPath}.lock`, `${pid}\n`);
