/**
 * A monitor deleted while one of its runs is fetching keeps no credit without a run record:
 * the delete gives the run's credit back and the runner, finding the monitor gone, writes
 * nothing. A run that finished before the delete stays paid for, with its usage row.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerResponse } from 'node:http';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { DIALECTS, startTestService, type TestService } from '../helpers/service.js';

const PAGE =
  '<html><head><title>Slow page</title></head><body><main><h1>Slow page</h1><p>A page that answers when the test says so, long enough to be content.</p></main></body></html>';

describe.each(DIALECTS)('deleting a monitor during its run (%s)', (dialect) => {
  let svc: TestService;
  let site: FixtureServer;
  const held: ServerResponse[] = [];
  let arrived: () => void = () => undefined;

  beforeAll(async () => {
    site = await startFixtureServer({
      '/slow': (_req, res) => {
        held.push(res);
        arrived();
      },
      '/fast': PAGE,
    });
    svc = await startTestService(dialect);
  }, 60_000);
  afterAll(async () => {
    for (const res of held) res.destroy();
    await svc?.stop();
    await site?.close();
  });

  const call = async (method: string, path: string, key: string, body?: unknown) => {
    const res = await fetch(`${svc.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: await res.json() };
  };
  const pausedMonitor = async (key: string, path: string) => {
    const id = (
      await call('POST', '/v1/monitors', key, {
        url: `${site.url}${path}`,
        interval: '1d',
        watch: ['title'],
        webhook: 'http://127.0.0.1:9/hook',
      })
    ).body.monitor.monitor_id as string;
    await call('PATCH', `/v1/monitors/${id}`, key, { state: 'paused' });
    return id;
  };
  const monitorRunUsage = async (accountId: string) =>
    svc.store.db
      .selectFrom('usage')
      .select(['credits'])
      .where('account_id', '=', accountId)
      .where('endpoint', '=', 'monitor run')
      .execute();

  it('refunds the credit of the run in flight; the run ends 404 and leaves no charge', async () => {
    const { key, accountId } = await svc.newKey(5);
    const id = await pausedMonitor(key, '/slow');
    const pageRequested = new Promise<void>((resolve) => (arrived = resolve));
    const running = call('POST', `/v1/monitors/${id}/run`, key, {});
    await pageRequested;
    expect(await svc.credits(accountId)).toBe(4); // charged when it started

    expect((await call('DELETE', `/v1/monitors/${id}`, key)).status).toBe(200);
    expect(await svc.credits(accountId)).toBe(5);

    for (const res of held.splice(0)) res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    const ended = await running;
    expect(ended.status).toBe(404);
    expect(ended.body.error).toBe('not_found');
    expect(await svc.credits(accountId)).toBe(5);
    expect(await monitorRunUsage(accountId)).toEqual([]);
    expect(await svc.store.db.selectFrom('monitor_runs').select('id').where('monitor_id', '=', id).execute()).toEqual(
      [],
    );
  });

  it('a run that finished before the delete stays paid for, with its usage row', async () => {
    const { key, accountId } = await svc.newKey(5);
    const id = await pausedMonitor(key, '/fast');
    expect((await call('POST', `/v1/monitors/${id}/run`, key, {})).body.run).toMatchObject({
      status: 'succeeded',
      credits: 1,
    });
    expect((await call('DELETE', `/v1/monitors/${id}`, key)).status).toBe(200);
    expect(await svc.credits(accountId)).toBe(4);
    expect((await monitorRunUsage(accountId)).map((u) => Number(u.credits))).toEqual([1]);
  });
});
