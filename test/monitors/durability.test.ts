/**
 * Nothing is lost across SIGKILL: a `trawl serve` child process is killed while a webhook
 * delivery is in the middle of an attempt (and others wait for their retry); after a restart
 * on the same store the event is delivered with the same id and the interrupted attempt is in
 * the log; an event of a monitor deleted meanwhile is never sent. Once on SQLite, once on PostgreSQL.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type ServerResponse } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startFixtureServer } from '../helpers/fixture-server.js';
import { createTestDatabase } from '../helpers/service.js';
import { accounts, keys, monitors, openStore } from '../../src/store/index.js';

const BIN = join(import.meta.dirname, '../../bin/trawl.js');

function startServe(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--expose-gc', BIN, '--json', 'serve'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr!.on('data', (d) => (err += d));
    child.stdout!.on('data', (d) => {
      out += d;
      const line = out.split('\n').find((l) => l.includes('"listening"'));
      if (line) resolve({ child, url: JSON.parse(line).url });
    });
    child.once('exit', (code) => reject(new Error(`trawl serve exited (${code}): ${err.slice(-2000)}`)));
  });
}

type Mode = 'fail' | 'hang' | 'ok';

async function receiver() {
  let mode: Mode = 'fail';
  const got: { body: string; mode: Mode }[] = [];
  const hanging: ServerResponse[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      got.push({ body, mode });
      if (mode === 'hang') return void hanging.push(res);
      res.writeHead(mode === 'ok' ? 200 : 500).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    got,
    hanging,
    setMode: (m: Mode) => void (mode = m),
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

async function until<T>(what: string, fn: () => T | Promise<T>, timeoutMs = 20_000): Promise<NonNullable<T>> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v as NonNullable<T>;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

for (const dialect of ['sqlite', 'postgres'] as const) {
  describe(`SIGKILL and restart on ${dialect}`, () => {
    const cleanup: (() => Promise<void> | void)[] = [];
    afterAll(async () => {
      for (const c of cleanup.reverse()) await c();
    });

    it('resumes an interrupted delivery with the same event id and sends nothing for a deleted monitor', async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'trawl-kill-'));
      cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
      const pgDb = dialect === 'postgres' ? await createTestDatabase() : undefined;
      if (pgDb) cleanup.push(() => pgDb.drop());
      const env: Record<string, string> = {
        PORT: '0',
        TRAWL_DATA_DIR: dataDir,
        TRAWL_ALLOW_PRIVATE_NETWORK: '1',
        TRAWL_WEBHOOK_RETRY_BASE_MS: '20', // the schedule scaled: 20 ms, 1.2 s, 7.2 s …
        TRAWL_WEBHOOK_MAX_ATTEMPTS: '10',
        TRAWL_DOCUMENT_WORKERS: '0',
        LOG_LEVEL: 'silent',
        ...(pgDb ? { DATABASE_URL: pgDb.url } : {}),
      };
      let price = 10;
      let slowHangs = true;
      const site = await startFixtureServer({
        '/slow': async (_q, res) => {
          while (slowHangs) await new Promise((r) => setTimeout(r, 50));
          res
            .writeHead(200, { 'content-type': 'text/html' })
            .end('<html><head><title>Slow</title></head><body><p>Finally here.</p></body></html>');
        },
        '/p': (_q, res) =>
          res
            .writeHead(200, { 'content-type': 'text/html' })
            .end(
              `<html><head><title>P</title></head><body><main><h1>P</h1><p class="price">$${price}</p></main></body></html>`,
            ),
      });
      cleanup.push(() => site.close());
      const hook = await receiver();
      cleanup.push(() => hook.close());

      let serve = await startServe(env);
      cleanup.push(() => void serve.child.kill('SIGKILL'));
      const store = await openStore({ dataDir, databaseUrl: pgDb?.url });
      cleanup.push(() => store.close());
      const acc = await accounts.createAccount(store.db, { email: `kill-${dialect}@test.local`, credits: 20 });
      const { key } = await keys.createApiKey(store.db, { accountId: acc.id });
      const api = async (method: string, path: string, body?: unknown) => {
        const res = await fetch(`${serve.url}${path}`, {
          method,
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        return (await res.json()) as any;
      };
      const make = async () => {
        const id = (
          await api('POST', '/v1/monitors', {
            url: `${site.url}/p`,
            interval: '1h',
            watch: ['price'],
            webhook: hook.url,
            schema: { price: 'number' },
          })
        ).monitor.monitor_id as string;
        await api('PATCH', `/v1/monitors/${id}`, { state: 'paused' });
        await api('POST', `/v1/monitors/${id}/run`, {});
        return id;
      };
      const kept = await make();
      const doomed = await make();
      // A run in the middle of fetching a page when the process dies.
      const slow = (
        await api('POST', '/v1/monitors', {
          url: `${site.url}/slow`,
          interval: '1h',
          watch: ['title'],
          webhook: hook.url,
        })
      ).monitor.monitor_id as string;
      await api('PATCH', `/v1/monitors/${slow}`, { state: 'paused' });
      void api('POST', `/v1/monitors/${slow}/run`, {}).catch(() => undefined);
      await until('the slow page requested', () => site.hits('/slow') > 0);
      price = 9;
      const eventKept = (await api('POST', `/v1/monitors/${kept}/run`, {})).run.event_id as string;
      const eventDoomed = (await api('POST', `/v1/monitors/${doomed}/run`, {})).run.event_id as string;
      expect(eventKept).toMatch(/^evt_/);
      const idOf = (b: string) => JSON.parse(b).id as string;
      // Both fail once; the next attempt of each hangs, and the process is killed mid-attempt.
      await until('first attempts', () => hook.got.filter((g) => g.mode === 'fail').length >= 2);
      hook.setMode('hang');
      await until('an attempt in flight', () => hook.got.some((g) => g.mode === 'hang' && idOf(g.body) === eventKept));
      serve.child.kill('SIGKILL');
      await new Promise((r) => serve.child.once('exit', r));
      for (const res of hook.hanging.splice(0)) res.destroy();
      // While it is down the doomed monitor is deleted (what DELETE /v1/monitors/{id} does).
      expect(await monitors.deleteMonitor(store.db, acc.id, doomed)).toBe(true);
      const sentBefore = hook.got.length;
      const creditsBefore = Number((await accounts.findAccountById(store.db, acc.id))!.credits);
      hook.setMode('ok');
      slowHangs = false;

      serve = await startServe(env);
      // On SQLite the restarted process is the file's only one (its lock says so) and takes the
      // dead one's work back at once; on PostgreSQL others may share the store, so the work comes
      // back when its lease runs out (deliveries 20 s, runs 30 s, on the database's clock).
      const recovery = dialect === 'postgres' ? 60_000 : 20_000;
      await until(
        'the kept event delivered',
        () => hook.got.some((g) => g.mode === 'ok' && idOf(g.body) === eventKept),
        recovery,
      );
      const mine = hook.got.filter((g) => idOf(g.body) === eventKept);
      expect(new Set(mine.map((g) => g.body)).size).toBe(1); // the same bytes, the same id
      const deliveries = (await api('GET', `/v1/monitors/${kept}/deliveries`)).deliveries;
      const d = await until('delivery recorded as succeeded', async () => {
        const row = (await api('GET', `/v1/monitors/${kept}/deliveries`)).deliveries[0];
        return row?.state === 'succeeded' ? row : undefined;
      });
      expect(deliveries).toHaveLength(1);
      const outcomes: string[] = d.attempt_log.map((a: any) => a.outcome);
      expect(outcomes.slice(-2)).toEqual(['interrupted', 'succeeded']);
      expect(outcomes.slice(0, -2).every((o) => o === 'failed')).toBe(true);
      // The run killed mid-fetch was taken up again and finished, charged once.
      const resumed = await until(
        'the interrupted run finished',
        async () => {
          const r = await store.db
            .selectFrom('monitor_runs')
            .selectAll()
            .where('monitor_id', '=', slow)
            .where('trigger', '=', 'manual')
            .orderBy('due_at', 'desc')
            .executeTakeFirst();
          return r?.status === 'succeeded' ? r : undefined;
        },
        recovery,
      );
      expect(resumed.credits).toBe(1);
      expect(Number((await accounts.findAccountById(store.db, acc.id))!.credits)).toBe(creditsBefore);
      // Give the doomed event every chance to (wrongly) go out.
      await new Promise((r) => setTimeout(r, 1500));
      expect(hook.got.slice(sentBefore).filter((g) => idOf(g.body) === eventDoomed)).toEqual([]);
      serve.child.kill('SIGTERM');
      await new Promise((r) => serve.child.once('exit', r));
    }, 150_000);
  });
}
