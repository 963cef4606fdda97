/**
 * One playground tab, as every tab is served: its form on GET; on POST the form again, then the
 * result and the request as curl, TypeScript and Python (or the error as the page's notice).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { html, type Raw } from './html.js';
import type { Kit } from './kit.js';
import type { SessionInfo } from './session.js';
import type { Posted } from './fields.js';
import type { Outcome } from './run.js';
import { snippets } from './snippets.js';
import { apiBase, tabNav } from './tabs.js';

export interface Tab<T> {
  /** Where the tab lives (one of tabs.ts's TABS). */
  path: string;
  form: (s: SessionInfo, f: Posted) => Raw;
  /** Runs the posted form: the API body it made and how it went (run.ts's runForm). */
  run: (
    f: Posted,
    s: SessionInfo,
    request: FastifyRequest,
  ) => Promise<{ body: Record<string, unknown>; outcome: Outcome<T> }>;
  show: (value: T, credits: number, ms: number, body: Record<string, unknown>) => Raw;
  /** The /v1 endpoint the snippets call. */
  apiPath: string;
}

export function playgroundTab<T>(app: FastifyInstance, kit: Kit, tab: Tab<T>): void {
  const { authed, shell, send } = kit;
  const { path, form } = tab;
  const page = (s: SessionInfo, body: Raw, notice?: { kind: 'ok' | 'error'; text: string }) =>
    shell(s, '/playground', 'Playground', html`${tabNav(path)}${body}`, notice);
  app.get(
    path,
    { schema: { hide: true } },
    authed(async (_request, reply, s) => send(reply, 200, page(s, form(s, {})))),
  );
  app.post(
    path,
    { schema: { hide: true } },
    authed(async (request, reply, s) => {
      const f = (request.body ?? {}) as Posted;
      const { body, outcome } = await tab.run(f, s, request);
      if (!outcome.ok) return send(reply, outcome.status, page(s, form(s, f), { kind: 'error', text: outcome.text }));
      return send(
        reply,
        200,
        page(
          s,
          html`${form(s, f)}<section aria-label="Result" data-testid="result">${tab.show(outcome.value, outcome.credits, outcome.ms, body)}</section>${snippets(apiBase(request), tab.apiPath, body)}`,
        ),
      );
    }),
  );
}
