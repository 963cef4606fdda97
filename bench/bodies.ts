/**
 * npm run bench:bodies — large request bodies must not hold up anyone else (issue 39, finding 2).
 * One `trawl serve` (embedded, SQLite) per phase; three senders post the largest body a batch
 * may have (10,000 URLs of ~8,100 characters, 81 MB) in a loop while a bystander account calls
 * GET /healthz and GET /v1/account one after another:
 *   1. from a key whose account has 0 credits (each answer should be 402);
 *   2. from a key with credits, the last URL invalid (400 after the whole body was read: the
 *      costliest free path);
 *   3. one sender of a valid body (202, one job of 10,000 URLs that all fail fast).
 * Prints the senders' answers and times, and the bystander's latencies (p50/p99/max) and timeouts.
 * The senders run in a process of their own (this file with BENCH_ROLE=sender), so the bystander's
 * times are the service's, not those of a client busy pushing 240 MB. BENCH_SECONDS (20) per phase;
 * BENCH_ROOT: the checkout whose build to run (this one by default), to compare with an older build.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { accounts, keys, openStore } from '../src/store/index.js';
import { ROOT } from './lib/service.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const SENDERS = 3;
const BYSTANDER_TIMEOUT_MS = 5_000;

/** 10,000 URLs of ~8,100 characters on a port nothing listens on (a job's pages fail at once). */
function batchBody(lastValid: boolean): Buffer {
  const urls = Array.from({ length: 10_000 }, (_, i) => `http://127.0.0.1:1/${i}/${'a'.repeat(8_080)}`);
  if (!lastValid) urls[urls.length - 1] = 'not a url';
  return Buffer.from(JSON.stringify({ urls }));
}

const pct = (xs: number[], p: number) =>
  xs.length ? Math.round(xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]) : NaN;

function launch(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [join(process.env.BENCH_ROOT ?? ROOT, 'bin/trawl.js'), '--json', 'serve'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.stdout!.once('data', (d) => resolve({ child, url: JSON.parse(String(d).split('\n')[0]).url }));
    child.once('exit', (code) => reject(new Error(`trawl serve exited with ${code}`)));
  });
}

async function timed(url: string, init: RequestInit, timeoutMs?: number): Promise<{ status: number; ms: number }> {
  const t = performance.now();
  try {
    const res = await fetch(url, { ...init, signal: timeoutMs ? AbortSignal.timeout(timeoutMs) : undefined });
    await res.arrayBuffer();
    return { status: res.status, ms: performance.now() - t };
  } catch {
    return { status: 0, ms: performance.now() - t };
  }
}

async function phase(name: string, credits: number, body: 'valid' | 'invalid', count: number): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'trawl-bench-bodies-'));
  const store = await openStore({ dataDir });
  const keyOf = async (c: number) => {
    const acc = await accounts.createAccount(store.db, { email: `${Math.random()}@bench.local`, credits: c });
    await accounts.setRateLimitCeiling(store.db, acc.id, 1_000_000);
    return (await keys.createApiKey(store.db, { accountId: acc.id, rateLimitPerMinute: 1_000_000 })).key;
  };
  const sender = await keyOf(credits);
  const bystander = await keyOf(1_000);
  await store.close(); // the service owns the file while it runs
  const { child, url } = await launch({
    PORT: '0',
    TRAWL_DATA_DIR: dataDir,
    TRAWL_ALLOW_PRIVATE_NETWORK: '1',
    LOG_LEVEL: 'error',
    DATABASE_URL: '',
    REDIS_URL: '',
    TRAWL_REQUEST_TIMEOUT_MS: '120000',
  });
  const until = Date.now() + SECONDS * 1000;
  const senders = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url)], {
    env: {
      ...process.env,
      BENCH_ROLE: 'sender',
      BENCH_URL: url,
      BENCH_KEY: sender,
      BENCH_BODY: body,
      BENCH_SENDERS: String(count),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  senders.stdout!.on('data', (d) => (out += d));
  const sent = new Promise<{ status: number; ms: number }[]>((resolve) =>
    senders.once('exit', () => resolve(JSON.parse(out || '[]'))),
  );
  const seen: Record<string, number[]> = { healthz: [], account: [] };
  let timeouts = 0;
  const watch = async () => {
    for (let i = 0; Date.now() < until; i++) {
      const which = i % 2 ? 'account' : 'healthz';
      const r = await timed(
        which === 'healthz' ? `${url}/healthz` : `${url}/v1/account`,
        { headers: { authorization: `Bearer ${bystander}` } },
        BYSTANDER_TIMEOUT_MS,
      );
      if (r.status === 0) timeouts++;
      else seen[which].push(r.ms);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  await watch();
  const answers = await sent;
  child.kill('SIGTERM');
  await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
  rmSync(dataDir, { recursive: true, force: true });
  const statuses = [...new Set(answers.map((s) => s.status))].join('/');
  const senderMs = answers.map((s) => s.ms).sort((a, b) => a - b);
  console.log(`  ${name}`);
  console.log(
    `    senders: ${answers.length} answers (${statuses}), answered in p50 ${pct(senderMs, 50)} ms, max ${pct(senderMs, 100)} ms`,
  );
  for (const [which, xs] of Object.entries(seen)) {
    xs.sort((a, b) => a - b);
    console.log(
      `    bystander ${which.padEnd(8)} ${xs.length} answers: p50 ${pct(xs, 50)} ms, p99 ${pct(xs, 99)} ms, max ${pct(xs, 100)} ms`,
    );
  }
  console.log(`    bystander timeouts (> ${BYSTANDER_TIMEOUT_MS} ms): ${timeouts}`);
}

/** A sender process: `BENCH_SENDERS` loops posting the body until BENCH_SECONDS are up; prints the answers. */
async function sendAll(): Promise<void> {
  const body = batchBody(process.env.BENCH_BODY === 'valid');
  const until = Date.now() + SECONDS * 1000;
  const sent: { status: number; ms: number }[] = [];
  const send = async () => {
    while (Date.now() < until)
      sent.push(
        await timed(`${process.env.BENCH_URL}/v1/batch/scrape`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${process.env.BENCH_KEY}` },
          body: new Uint8Array(body.buffer as ArrayBuffer, body.byteOffset, body.length),
        }),
      );
  };
  await Promise.all(Array.from({ length: Number(process.env.BENCH_SENDERS) }, send));
  process.stdout.write(JSON.stringify(sent));
}

if (process.env.BENCH_ROLE === 'sender') await sendAll();
else {
  console.log(
    `bench:bodies — ${SENDERS} senders of a ${(batchBody(true).length / 1e6).toFixed(1)} MB batch body, a bystander on /healthz and /v1/account; ${SECONDS} s per phase`,
  );
  await phase('0-credit key (expect 402)', 0, 'valid', SENDERS);
  await phase('credited key, last URL invalid (expect 400)', 1_000, 'invalid', SENDERS);
  await phase('credited key, valid body, one sender (expect 202)', 1_000, 'valid', 1);
}
