/** What the server shares with its routes and plugins, and the request decorations' types. */
import type { AppContext } from '../app/context.js';
import type { RateLimiter } from './token-bucket.js';

/** The use cases' context (app/context.ts) and the server's rate limiter. */
export interface ServerContext extends AppContext {
  rateLimiter: RateLimiter;
}

export interface AuthInfo {
  accountId: string;
  keyId: string;
  rateLimitPerMinute: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    auth?: AuthInfo;
    /** Credits kept for this request (0 until work succeeds). */
    creditsCharged: number;
    /** performance.now() when the request arrived (its usage row's duration). */
    startedAt: number;
  }
}
