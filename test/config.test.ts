import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, loadEnv, parseResolve } from '../src/config.js';

describe('config', () => {
  it('has the contract defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      allowPrivateNetwork: false,
      minIntervalSeconds: 60,
      webhookRetryBaseMs: 5000,
      webhookMaxAttempts: 8,
      webhookSecretOverlapHours: 24,
      webhookDisableAfterHours: 72,
      rateLimitPerMinute: 60,
      metaAdLibraryBaseUrl: 'https://www.facebook.com',
      metaGraphBaseUrl: 'https://graph.facebook.com',
    });
    expect(c.dataDir.endsWith('/data')).toBe(true);
  });
  it('bounds slow and crowded clients, and monitors per account', () => {
    expect(loadConfig({})).toMatchObject({
      requestTimeoutMs: 30_000,
      maxConnectionsPerIp: 64,
      maxMonitorsPerAccount: 1000,
    });
    expect(loadConfig({ TRAWL_MAX_CONNECTIONS_PER_IP: '0', TRAWL_REQUEST_TIMEOUT_MS: '1000' })).toMatchObject({
      maxConnectionsPerIp: 0,
      requestTimeoutMs: 1000,
    });
    expect(() => loadConfig({ TRAWL_REQUEST_TIMEOUT_MS: '10' })).toThrow(/TRAWL_REQUEST_TIMEOUT_MS/);
    expect(() => loadConfig({ TRAWL_MAX_MONITORS_PER_ACCOUNT: '0' })).toThrow(/TRAWL_MAX_MONITORS_PER_ACCOUNT/);
    expect(loadConfig({}).dbPoolSize).toBeUndefined();
    expect(loadConfig({ TRAWL_DB_POOL_SIZE: '40' }).dbPoolSize).toBe(40);
    expect(() => loadConfig({ TRAWL_DB_POOL_SIZE: '0' })).toThrow(/TRAWL_DB_POOL_SIZE/);
  });
  it('bounds the webhook settings', () => {
    expect(
      loadConfig({ TRAWL_WEBHOOK_SECRET_OVERLAP_HOURS: '0', TRAWL_WEBHOOK_DISABLE_AFTER_HOURS: '1' }),
    ).toMatchObject({ webhookSecretOverlapHours: 0, webhookDisableAfterHours: 1 });
    expect(() => loadConfig({ TRAWL_WEBHOOK_SECRET_OVERLAP_HOURS: '721' })).toThrow(
      /TRAWL_WEBHOOK_SECRET_OVERLAP_HOURS: must be an integer from 0 to 720/,
    );
    expect(() => loadConfig({ TRAWL_WEBHOOK_DISABLE_AFTER_HOURS: '0' })).toThrow(/TRAWL_WEBHOOK_DISABLE_AFTER_HOURS/);
    expect(() => loadConfig({ TRAWL_WEBHOOK_RETRY_BASE_MS: '0' })).toThrow(/TRAWL_WEBHOOK_RETRY_BASE_MS/);
  });
  it('keeps runs, events and deliveries 30 days unless told otherwise, within bounds', () => {
    expect(loadConfig({}).runRetentionDays).toBe(30);
    expect(loadConfig({ TRAWL_RUN_RETENTION_DAYS: '7' }).runRetentionDays).toBe(7);
    expect(() => loadConfig({ TRAWL_RUN_RETENTION_DAYS: '0' })).toThrow(
      /TRAWL_RUN_RETENTION_DAYS: must be an integer from 1 to 3650/,
    );
    expect(() => loadConfig({ TRAWL_RUN_RETENTION_DAYS: '1.5' })).toThrow(/TRAWL_RUN_RETENTION_DAYS/);
  });
  it('parses TRAWL_RESOLVE like curl --connect-to', () => {
    expect(parseResolve('www.amazon.com=127.0.0.1:8080, shop.test=10.0.0.2,v6.test=[::1]:81')).toEqual([
      { host: 'www.amazon.com', address: '127.0.0.1', port: 8080 },
      { host: 'shop.test', address: '10.0.0.2', port: undefined },
      { host: 'v6.test', address: '::1', port: 81 },
    ]);
    expect(() => parseResolve('nonsense')).toThrow(/TRAWL_RESOLVE/);
  });
  it('rejects bad numbers with the variable name', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/PORT: must be an integer/);
    expect(() => loadConfig({ TRAWL_RATE_LIMIT_PER_MINUTE: '0' })).toThrow(/TRAWL_RATE_LIMIT_PER_MINUTE/);
  });
  it('reads .env under the real environment', () => {
    const dir = mkdtempSync(join(tmpdir(), 'trawl-env-'));
    try {
      writeFileSync(join(dir, '.env'), 'PORT=4100\nHOST=0.0.0.0\n');
      const env = loadEnv({ HOST: '127.0.0.2' }, dir);
      expect(loadConfig(env)).toMatchObject({ port: 4100, host: '127.0.0.2' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
