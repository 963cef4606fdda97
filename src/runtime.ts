/** Wires config → store → engine → server, and shuts them down in reverse order. */
import type { FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import { createEngine, type Engine } from './engine/index.js';
import { buildServer } from './server/app.js';
import type { ServerContext } from './server/context.js';
import { RedisTokenBuckets } from './server/redis-token-bucket.js';
import { MemoryTokenBuckets, type RateLimiter } from './server/token-bucket.js';
import { openStore, type Store } from './store/index.js';

export interface Service {
  app: FastifyInstance;
  store: Store;
  engine: Engine;
  /** Base URL the server listens on. */
  url: string;
  close(): Promise<void>;
}

export async function startService(config: Config, options: { logger?: boolean | object; listen?: boolean } = {}): Promise<Service> {
  let app: FastifyInstance | undefined;
  const store = await openStore({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    onError: (err) => app?.log.warn({ err: err.message }, 'database connection dropped; it will be reopened'),
  });
  const engine = createEngine(config, { warn: (obj, msg) => app?.log.warn(obj, msg) });
  const rateLimiter: RateLimiter = config.redisUrl ? new RedisTokenBuckets(config.redisUrl) : new MemoryTokenBuckets();
  const ctx: ServerContext = { config, store, engine, rateLimiter };
  app = await buildServer(ctx, { logger: options.logger });
  let url = '';
  if (options.listen !== false) {
    await app.listen({ port: config.port, host: config.host });
    const addr = app.server.address();
    url = typeof addr === 'object' && addr ? `http://${addr.family === 'IPv6' ? `[${addr.address}]` : addr.address}:${addr.port}` : '';
  } else {
    await app.ready();
  }
  let closing: Promise<void> | undefined;
  return {
    app,
    store,
    engine,
    url,
    close: () =>
      (closing ??= (async () => {
        await app.close();
        await rateLimiter.close?.();
        await engine.close();
        await store.close();
      })()),
  };
}
