/**
 * Monitors: a page or product scraped on an interval, with a signed webhook when a watched field
 * changes. Tools to create, list, read, delete them and read a field's history. None costs a
 * credit; each run of a monitor does.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { tokensToChars, trimJson } from '../budget.js';
import type { ToolContext } from '../context.js';
import { defined, guarded, ok, query } from '../results.js';
import { maxTokens, schemaObject } from './shared.js';

const MONITOR_TOKENS = 4000;
const record = z.record(z.string(), z.unknown());
const monitorId = z.string().describe('The monitor_id, "mon_…".');
const notes = z.array(z.string()).describe('What was cut to fit max_tokens.');

type Monitor = Record<string, unknown> & {
  monitor_id: string;
  url: string;
  interval: string;
  watch: string[];
  state?: string;
};

/** One line a model can scan: id, state, what, how often, watching what. */
const line = (m: Monitor) =>
  `- ${m.monitor_id} [${m.state ?? 'active'}${m.health && m.health !== 'ok' ? `, ${m.health}` : ''}] ${m.url} every ${m.interval}, watching ${m.watch.join(', ')}`;

export function registerMonitors(server: McpServer, ctx: ToolContext): void {
  const id = (s: string) => encodeURIComponent(s);

  server.registerTool(
    'monitors_create',
    {
      title: 'Create a monitor',
      description:
        'Watch a page or a marketplace product: it is scraped every `interval`, and when a watched field changes a signed change.detected webhook is POSTed to `webhook`. ' +
        'Watch the built-ins title, markdown, status_code; keys of `schema`; or, for a marketplace product URL, fields such as price, in_stock, availability, rating. Each run costs 1 credit.',
      inputSchema: {
        url: z.string().describe('The page or product to watch (http or https).'),
        interval: z
          .string()
          .describe('How often: a whole number and a unit s, m, h or d, e.g. "30m", "6h", "1d" (1 minute to 30 days).'),
        watch: z
          .array(z.string())
          .min(1)
          .max(20)
          .describe('The fields whose change sends the webhook, e.g. ["price","in_stock"].'),
        webhook: z.string().describe('Where change events are POSTed (http or https).'),
        marketplace: z
          .string()
          .optional()
          .describe('A marketplace id such as "amazon_us"; inferred from the URL when omitted.'),
        schema: schemaObject.optional(),
        events: z
          .array(z.enum(['change.detected', 'monitor.failing', 'monitor.recovered']))
          .optional()
          .describe('Events to send (default ["change.detected"]).'),
        conditions: z
          .array(
            z.object({
              field: z.string(),
              op: z.enum(['changed', 'increased', 'decreased', 'lt', 'lte', 'gt', 'gte', 'eq', 'ne']).optional(),
              value: z.unknown().optional(),
            }),
          )
          .optional()
          .describe('Rules that must all hold for an event, e.g. [{"field":"price","op":"lt","value":50}].'),
      },
      outputSchema: { monitor: record },
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
    },
    (args, extra) =>
      guarded(ctx.log, 'monitors_create', async () => {
        const body = defined({
          url: args.url,
          interval: args.interval,
          watch: args.watch,
          webhook: args.webhook,
          marketplace: args.marketplace,
          schema: args.schema,
          events: args.events,
          conditions: args.conditions,
        });
        const { monitor } = await (await ctx.api(extra)).post<{ monitor: Monitor }>('/v1/monitors', body, extra.signal);
        return ok(`Created monitor ${monitor.monitor_id}; first run at ${monitor.next_run_at}.\n${line(monitor)}`, {
          monitor,
        });
      }),
  );

  server.registerTool(
    'monitors_list',
    {
      title: 'List monitors',
      description: "The account's monitors, newest first: id, state, URL, interval, watched fields.",
      inputSchema: {
        limit: z.number().int().min(1).max(100).optional().describe('Most monitors to return (default 50).'),
        cursor: z.string().optional().describe('next_cursor of the previous answer, for the next page.'),
      },
      outputSchema: { monitors: z.array(record), next_cursor: z.string().nullable() },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args, extra) =>
      guarded(ctx.log, 'monitors_list', async () => {
        const r = await (
          await ctx.api(extra)
        ).get<{ monitors: Monitor[]; next_cursor: string | null }>(
          `/v1/monitors${query({ limit: args.limit, cursor: args.cursor })}`,
          extra.signal,
        );
        const text = r.monitors.length
          ? [
              `${r.monitors.length} monitor${r.monitors.length === 1 ? '' : 's'}:`,
              ...r.monitors.map(line),
              ...(r.next_cursor ? [`[More: call monitors_list with cursor "${r.next_cursor}".]`] : []),
            ].join('\n')
          : 'No monitors yet; create one with monitors_create.';
        return ok(text, { monitors: r.monitors, next_cursor: r.next_cursor });
      }),
  );

  server.registerTool(
    'monitors_get',
    {
      title: 'Read a monitor',
      description: 'A monitor with its last values, health and its 10 latest runs (status, changes, errors).',
      inputSchema: { monitor_id: monitorId, max_tokens: maxTokens(MONITOR_TOKENS, 'the monitor JSON') },
      outputSchema: { monitor: record, notes },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args, extra) =>
      guarded(ctx.log, 'monitors_get', async () => {
        const { monitor } = await (
          await ctx.api(extra)
        ).get<{ monitor: Monitor }>(`/v1/monitors/${id(args.monitor_id)}`, extra.signal);
        // Watched markdown can be a whole page, in last_values and in every run: cut to the budget.
        const tokens = args.max_tokens ?? MONITOR_TOKENS;
        const t = trimJson(monitor, tokensToChars(tokens));
        const cut = t.notes.length ? `\n[Cut to fit ${tokens} tokens: ${t.notes.join('; ')}.]` : '';
        return ok(`${line(monitor)}\n\n${JSON.stringify(t.value)}${cut}`, {
          monitor: t.value as Record<string, unknown>,
          notes: t.notes,
        });
      }),
  );

  server.registerTool(
    'monitors_delete',
    {
      title: 'Delete a monitor',
      description: 'Delete a monitor with its runs; nothing more is sent for it.',
      inputSchema: { monitor_id: monitorId },
      outputSchema: { monitor_id: z.string(), deleted: z.boolean() },
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    (args, extra) =>
      guarded(ctx.log, 'monitors_delete', async () => {
        const r = await (
          await ctx.api(extra)
        ).delete<{ monitor_id: string; deleted: boolean }>(`/v1/monitors/${id(args.monitor_id)}`, extra.signal);
        return ok(`Deleted monitor ${r.monitor_id}.`, { monitor_id: r.monitor_id, deleted: r.deleted });
      }),
  );

  server.registerTool(
    'monitors_history',
    {
      title: "A monitor's history",
      description:
        'With `field`: the values of that watched field over the successful runs (e.g. a price over time), oldest first. Without: the latest runs (status, values, changes, errors), newest first.',
      inputSchema: {
        monitor_id: monitorId,
        field: z.string().optional().describe('A watched field, e.g. "price".'),
        limit: z.number().int().min(1).max(500).optional().describe('Most points or runs (default 50).'),
        cursor: z.string().optional().describe('With field: next_cursor of the previous answer, for older points.'),
        max_tokens: maxTokens(MONITOR_TOKENS, 'the history JSON'),
      },
      outputSchema: {
        monitor_id: z.string(),
        field: z.string().optional(),
        points: z.array(z.object({ at: z.string(), value: z.unknown() })).optional(),
        runs: z.array(record).optional(),
        next_cursor: z.string().nullable().optional(),
        notes,
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (args, extra) =>
      guarded(ctx.log, 'monitors_history', async () => {
        const api = await ctx.api(extra);
        const tokens = args.max_tokens ?? MONITOR_TOKENS;
        const limit = args.limit ?? 50;
        if (args.field) {
          const r = await api.get<{
            field: string;
            points: { at: string; value: unknown }[];
            next_cursor: string | null;
          }>(
            `/v1/monitors/${id(args.monitor_id)}/history${query({ field: args.field, limit, cursor: args.cursor })}`,
            extra.signal,
          );
          const t = trimJson(r.points, tokensToChars(tokens));
          const points = t.value as { at: string; value: unknown }[];
          const text = [
            `${args.field} of ${args.monitor_id}: ${r.points.length} point${r.points.length === 1 ? '' : 's'}, oldest first.`,
            ...points.map((p) => `- ${p.at}: ${JSON.stringify(p.value)}`),
            ...(t.notes.length ? [`[Cut to fit ${tokens} tokens: ${t.notes.join('; ')}.]`] : []),
            ...(r.next_cursor ? [`[Older points: call monitors_history with cursor "${r.next_cursor}".]`] : []),
          ].join('\n');
          return ok(text, {
            monitor_id: args.monitor_id,
            field: r.field,
            points,
            next_cursor: r.next_cursor,
            notes: t.notes,
          });
        }
        const r = await api.get<{ runs: Record<string, unknown>[] }>(
          `/v1/monitors/${id(args.monitor_id)}/runs${query({ limit })}`,
          extra.signal,
        );
        const t = trimJson(r.runs, tokensToChars(tokens));
        const runs = t.value as Record<string, unknown>[];
        const text = [
          `${r.runs.length} latest run${r.runs.length === 1 ? '' : 's'} of ${args.monitor_id}, newest first:`,
          ...runs.map(
            (x) =>
              `- ${x.finished_at ?? x.due_at} ${x.status}${x.changes && Object.keys(x.changes as object).length ? ` changes ${JSON.stringify(x.changes)}` : ''}${x.error ? ` error ${JSON.stringify(x.error)}` : ''}`,
          ),
          ...(t.notes.length ? [`[Cut to fit ${tokens} tokens: ${t.notes.join('; ')}.]`] : []),
        ].join('\n');
        return ok(text, { monitor_id: args.monitor_id, runs, notes: t.notes });
      }),
  );
}
