/**
 * `trawl serve` stops on SIGTERM and SIGINT, also when started through npm (`npx trawl serve`:
 * npm → sh → node, where the shell dies of the signal without passing it on), and its options
 * are listed by `serve --help` (issue 43). Needs `npm run build`.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const BIN = join(import.meta.dirname, '../../bin/trawl.js');
const dirs: string[] = [];
const started: ChildProcess[] = [];

afterAll(() => {
  for (const c of started) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const dir = mkdtempSync(join(tmpdir(), 'trawl-serve-'));
  dirs.push(dir);
  const { npm_command: _npm, ...rest } = process.env;
  return { ...rest, TRAWL_DATA_DIR: dir, LOG_LEVEL: 'warn', ...extra };
}

/** Resolves with the URL once the server's `--json` line says it listens. */
function listening(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /\{"status":"listening","url":"([^"]+)"\}/.exec(out);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`serve exited (${code}) before listening: ${out}`)));
  });
}

const portOpen = (url: string) =>
  new Promise<boolean>((resolve) => {
    const u = new URL(url);
    const s = connect(Number(u.port), u.hostname);
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function until(ok: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await ok()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return ok();
}

describe('trawl mcp --http', () => {
  it('says where it listens once (stderr), and stdout stays empty without --json', async () => {
    const child = spawn(process.execPath, [BIN, 'mcp', '--http', '--port', '0'], {
      env: env({ TRAWL_API_URL: 'http://127.0.0.1:9', TRAWL_API_KEY: `trawl_${'x'.repeat(40)}` }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    started.push(child);
    let out = '';
    let err = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (err += d));
    expect(await until(() => /http:\/\/127\.0\.0\.1:\d+\/mcp/.test(err), 20_000)).toBe(true);
    await new Promise((r) => setTimeout(r, 500));
    const url = /http:\/\/127\.0\.0\.1:\d+\/mcp/.exec(err)![0];
    expect((out + err).split(url).length - 1).toBe(1);
    expect(out).toBe('');
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 60_000);
});

describe('trawl serve', () => {
  it('lists --port and --host in serve --help', () => {
    const r = spawnSync(process.execPath, [BIN, 'serve', '--help'], { encoding: 'utf8' });
    expect(r.stdout).toContain('--port <n>');
    expect(r.stdout).toContain('--host <address>');
  });

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`stops on ${signal}: exits 0 and the port is closed`, async () => {
      const child = spawn(process.execPath, [BIN, '--json', 'serve', '--port', '0'], {
        env: env(),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      started.push(child);
      const url = await listening(child);
      expect(await portOpen(url)).toBe(true);
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      child.kill(signal);
      expect(await exited).toBe(0);
      expect(await portOpen(url)).toBe(false);
    }, 60_000);
  }

  it('stops when started by npm and the shell between them is killed (npx trawl serve + SIGTERM)', async () => {
    // As npm exec runs a bin: npm → sh -c → node; npm forwards SIGTERM to the shell, which dies of it.
    const sh = spawn('sh', ['-c', `"${process.execPath}" "${BIN}" --json serve --port 0; true`], {
      env: env({ npm_command: 'exec' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    started.push(sh);
    const url = await listening(sh);
    const pid = Number(
      spawnSync('pgrep', ['-P', String(sh.pid)], { encoding: 'utf8' })
        .stdout.trim()
        .split('\n')[0],
    );
    expect(pid).toBeGreaterThan(0);
    sh.kill('SIGTERM');
    expect(await until(() => !alive(pid), 15_000)).toBe(true);
    expect(await portOpen(url)).toBe(false);
  }, 60_000);
});
