/**
 * A dashboard action that costs credits, run as the API runs it: the work gets a signal a closed
 * tab aborts (stopping the work and its charge), and the action writes its usage row (app/usage.ts)
 * with what it kept. A TrawlError becomes the text the page shows; anything else is the error page.
 */
import type { FastifyRequest } from 'fastify';
import { isTrawlError, TrawlError } from '../errors.js';
import type { AppContext } from '../app/context.js';
import { recordUsage } from '../app/usage.js';
import type { SessionInfo } from './session.js';

export type Outcome<T> =
  { ok: true; value: T; credits: number; ms: number } | { ok: false; status: number; text: string };

export async function runAction<T>(
  ctx: AppContext,
  request: FastifyRequest,
  s: SessionInfo,
  endpoint: string,
  work: (signal: AbortSignal) => Promise<{ value: T; credits: number }>,
): Promise<Outcome<T>> {
  const started = Date.now();
  const row = (status: number, credits: number) =>
    recordUsage(ctx, {
      accountId: s.account.id,
      keyId: null,
      endpoint,
      status,
      credits,
      durationMs: Date.now() - started,
      requestId: String(request.id),
    });
  const gone = new AbortController();
  const onClose = () => gone.abort(new TrawlError('fetch_failed', 'the browser tab closed the connection'));
  request.raw.socket?.once('close', onClose);
  try {
    const { value, credits } = await work(gone.signal);
    await row(200, credits);
    return { ok: true, value, credits, ms: Date.now() - started };
  } catch (e) {
    if (!isTrawlError(e)) throw e;
    if (e.code === 'insufficient_credits') return { ok: false, status: 402, text: 'No credits left.' };
    await row(e.status, e.charged ? 1 : 0);
    return { ok: false, status: e.status, text: `${e.code}: ${e.detail}` };
  } finally {
    request.raw.socket?.off('close', onClose);
  }
}

/**
 * A posted form run as an action: `bodyOf` makes the API body it stands for (inside the action, so
 * a field that does not parse is the page's notice), `work` runs it. The body is returned even when
 * the work failed: the page shows it as the snippets' request.
 */
export async function runForm<T>(
  ctx: AppContext,
  request: FastifyRequest,
  s: SessionInfo,
  endpoint: string,
  bodyOf: () => Record<string, unknown>,
  work: (body: Record<string, unknown>, signal: AbortSignal) => Promise<{ value: T; credits: number }>,
): Promise<{ body: Record<string, unknown>; outcome: Outcome<T> }> {
  let body: Record<string, unknown> = {};
  const outcome = await runAction(ctx, request, s, endpoint, (signal) => {
    body = bodyOf();
    return work(body, signal);
  });
  return { body, outcome };
}

export const cost = (credits: number) => (credits === 1 ? '1 credit' : `${credits} credits`);
