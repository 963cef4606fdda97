/**
 * A channel's message survives a SIGKILL: a `trawl serve` child is killed while a notification
 * is in the middle of an attempt (after two failed ones); after a restart on the same store the
 * message is sent again with the same idempotency key and taken once, and the email channel that
 * had already taken its message gets no second one. Once on SQLite, once on PostgreSQL.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type ServerResponse } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startFixtureServer } from '../helpers/fixture-server.js';
import { createTestDatabase, PG_AVAILABLE } from '../helpers/service.js';
import { startSmtpReceiver } from '../helpers/smtp-receiver.js';
import { accounts, keys, openStore } from '../../src/store/index.js';

const BIN = join(import.meta.dirname, '../../bin/trawl.js');

function startServe(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [BIN, '--json', 'serve'], {
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
  const got: { key: string; mode: Mode }[] = [];
  const hanging: ServerResponse[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      got.push({ key: String(req.headers['idempotency-key']), mode });
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

for (const dialect of PG_AVAILABLE ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const)) {
  describe(`notifications across SIGKILL on ${dialect}`, () => {
    const cleanup: (() => Promise<void> | void)[] = [];
    afterAll(async () => {
      for (const c of cleanup.reverse()) await c();
    });

    it('sends the interrupted message again with the same key, taken once; nothing twice', async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'trawl-notify-kill-'));
      cleanup.push(() => rmSync(dataDir, { recursive: true, force: true }));
      const pgDb = dialect === 'postgres' ? await createTestDatabase() : undefined;
      if (pgDb) cleanup.push(() => pgDb.drop());
      const smtp = await startSmtpReceiver({ user: 'u', pass: 'smtp-secret-pass' });
      cleanup.push(() => smtp.close());
      const env: Record<string, string> = {
        PORT: '0',
        TRAWL_DATA_DIR: dataDir,
        TRAWL_ALLOW_PRIVATE_NETWORK: '1',
        TRAWL_WEBHOOK_RETRY_BASE_MS: '20', // 20 ms, 1.2 s, 7.2 s …
        TRAWL_WEBHOOK_MAX_ATTEMPTS: '10',
        TRAWL_DOCUMENT_WORKERS: '0',
        TRAWL_SECRET_KEY: 's'.repeat(40),
        TRAWL_SMTP_URL: `smtp://u:smtp-secret-pass@127.0.0.1:${smtp.port}`,
        LOG_LEVEL: 'silent',
        ...(pgDb ? { DATABASE_URL: pgDb.url } : {}),
      };
      let price = 10;
      const site = await startFixtureServer({
        '/p': (_q, res) =>
          res
            .writeHead(200, { 'content-type': 'text/html' })
            .end(`<html><head><title>Lamp ${price}</title></head><body><main><p>A lamp.</p></main></body></html>`),
      });
      cleanup.push(() => site.close());
      const hook = await receiver();
      cleanup.push(() => hook.close());
      const chat = await receiver();
      cleanup.push(() => chat.close());
      hook.setMode('ok');

      let serve = await startServe(env);
      cleanup.push(() => void serve.child.kill('SIGKILL'));
      const store = await openStore({ dataDir, databaseUrl: pgDb?.url });
      cleanup.push(() => store.close());
      const acc = await accounts.createAccount(store.db, { email: `nkill-${dialect}@test.local`, credits: 20 });
      const { key } = await keys.createApiKey(store.db, { accountId: acc.id });
      const api = async (method: string, path: string, body?: unknown) => {
        const res = await fetch(`${serve.url}${path}`, {
          method,
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        return (await res.json()) as any;
      };
      const ch = (await api('POST', '/v1/channels', { name: 'chat', kind: 'json', webhook_url: chat.url })).channel;
      await api('POST', '/v1/channels', { name: 'mail', url: 'mailto://ops@example.com' });
      const id = (
        await api('POST', '/v1/monitors', {
          url: `${site.url}/p`,
          interval: '1h',
          watch: ['title'],
          webhook: hook.url,
          notify: ['chat', 'mail'],
        })
      ).monitor.monitor_id as string;
      await api('PATCH', `/v1/monitors/${id}`, { state: 'paused' });
      await api('POST', `/v1/monitors/${id}/run`, {});
      price = 12;
      const eventId = (await api('POST', `/v1/monitors/${id}/run`, {})).run.event_id as string;
      expect(eventId).toMatch(/^evt_/);
      // Two failed attempts, then the third hangs and the process dies in the middle of it.
      await until('two failed attempts', () => chat.got.filter((g) => g.mode === 'fail').length >= 2);
      chat.setMode('hang');
      await until('an attempt in flight', () => chat.got.some((g) => g.mode === 'hang'));
      await smtp.waitFor(1);
      serve.child.kill('SIGKILL');
      await new Promise((r) => serve.child.once('exit', r));
      for (const res of chat.hanging.splice(0)) res.destroy();
      chat.setMode('ok');

      serve = await startServe(env);
      const recovery = dialect === 'postgres' ? 60_000 : 20_000;
      await until('the message taken', () => chat.got.some((g) => g.mode === 'ok'), recovery);
      // Every attempt carried one key (one event, one channel) and one was taken.
      expect(new Set(chat.got.map((g) => g.key))).toEqual(new Set([`${eventId}.${ch.channel_id}`]));
      await new Promise((r) => setTimeout(r, 1500));
      expect(chat.got.filter((g) => g.mode === 'ok')).toHaveLength(1);
      expect(smtp.mails).toHaveLength(1);
      const row = await until('delivery recorded as succeeded', () =>
        store.db
          .selectFrom('webhook_deliveries')
          .selectAll()
          .where('channel_id', '=', ch.channel_id)
          .where('state', '=', 'succeeded')
          .executeTakeFirst(),
      );
      const attempts = await store.db
        .selectFrom('delivery_attempts')
        .select('outcome')
        .where('delivery_id', '=', row.id)
        .orderBy('attempt')
        .execute();
      expect(attempts.map((a) => a.outcome).slice(-2)).toEqual(['interrupted', 'succeeded']);
      serve.child.kill('SIGTERM');
      await new Promise((r) => serve.child.once('exit', r));
    }, 150_000);
  });
}
