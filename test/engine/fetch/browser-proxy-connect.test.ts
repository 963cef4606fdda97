/** The guarded proxy tunnels CONNECT to any port, port 80 too (the URL parser drops it as http's default). */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GuardedProxy } from '../../../src/engine/fetch/browser-proxy.js';
import { startFixtureServer, type FixtureServer } from '../../helpers/fixture-server.js';

describe('guarded proxy CONNECT', () => {
  let site: FixtureServer;
  const asked: string[] = [];
  let proxy: GuardedProxy;
  beforeAll(async () => {
    site = await startFixtureServer({ '/hello': 'hello through the tunnel' });
    proxy = new GuardedProxy({
      resolveTarget: async (host, port) => (asked.push(`${host}:${port}`), { address: '127.0.0.1', port: site.port }),
    });
  });
  afterAll(async () => {
    await proxy.close();
    await site.close();
  });

  const through = async (authority: string) => {
    const session = await proxy.open();
    const port = Number(new URL(session.server).port);
    try {
      return await new Promise<string>((resolve, reject) => {
        const s = connect(port, '127.0.0.1', () =>
          s.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`),
        );
        let out = '';
        s.on('data', (d) => {
          out += d;
          if (out.startsWith('HTTP/1.1 200') && !out.includes('GET-SENT') && out.endsWith('\r\n\r\n')) {
            out += 'GET-SENT';
            s.write('GET /hello HTTP/1.1\r\nHost: site.test\r\nConnection: close\r\n\r\n');
          }
        });
        s.on('end', () => resolve(out));
        s.on('error', reject);
      });
    } finally {
      await session.close();
    }
  };

  it('opens a tunnel to host:80 and host:443 as to any other port', async () => {
    for (const authority of ['site.test:80', 'site.test:443', 'site.test:8080']) {
      const out = await through(authority);
      expect(out, authority).toMatch(/^HTTP\/1\.1 200 Connection Established/);
      expect(out, authority).toContain('hello through the tunnel');
    }
    expect(asked).toEqual(['site.test:80', 'site.test:443', 'site.test:8080']);
    expect(await through('site.test')).toMatch(/^HTTP\/1\.1 400/);
  });
});
