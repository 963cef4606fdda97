/**
 * One `trawl serve` per SQLite file: a second service on the same data directory refuses to start
 * with a message saying what to do; a lock left by a process that died is taken over.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startService } from '../../src/runtime.js';
import { lockSqliteFile, writeLockForTest } from '../../src/store/lock.js';

describe('SQLite single-process lock', () => {
  const dirs: string[] = [];
  const dir = () => {
    const d = mkdtempSync(join(tmpdir(), 'trawl-lock-'));
    dirs.push(d);
    return d;
  };
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('a second service on the same data directory does not start; after the first stops, it does', async () => {
    const dataDir = dir();
    const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', TRAWL_DATA_DIR: dataDir });
    const first = await startService(config, { logger: false });
    try {
      await expect(startService(config, { logger: false })).rejects.toThrow(
        /another trawl process \(pid \d+\) is serving .*trawl\.db; .*PostgreSQL/,
      );
      expect(existsSync(join(dataDir, 'trawl.db.lock'))).toBe(true);
    } finally {
      await first.close();
    }
    expect(existsSync(join(dataDir, 'trawl.db.lock'))).toBe(false);
    const again = await startService(config, { logger: false });
    await again.close();
  });

  it('a service that cannot listen (port in use) stops everything it started and releases the lock', async () => {
    const blocker = createServer().listen(0, '127.0.0.1');
    await once(blocker, 'listening');
    const port = (blocker.address() as AddressInfo).port;
    const dataDir = dir();
    try {
      const config = loadConfig({ PORT: String(port), HOST: '127.0.0.1', TRAWL_DATA_DIR: dataDir });
      await expect(startService(config, { logger: false })).rejects.toThrow(/EADDRINUSE/);
      // Nothing left running headless: the lock is released, so a service on another port starts at once.
      expect(existsSync(join(dataDir, 'trawl.db.lock'))).toBe(false);
      const again = await startService({ ...config, port: 0 }, { logger: false });
      await again.close();
    } finally {
      blocker.close();
    }
  });

  it('takes over a lock whose process is gone', () => {
    const db = join(dir(), 'trawl.db');
    // A pid that certainly exited: a child that has already ended.
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    writeLockForTest(db, dead);
    const lock = lockSqliteFile(db);
    expect(() => lockSqliteFile(db)).toThrow(/another trawl process/);
    lock.release();
    lockSqliteFile(db).release();
  });
});
