/**
 * `trawl channels list|create|delete|test`: an account's notification channels on a Trawl server
 * (TRAWL_API_URL, TRAWL_API_KEY), through /v1/channels, so the server's key seals the secrets and
 * its checks answer. A channel is named by its id or its name. A destination holding a secret can
 * be read from stdin (`--url -`), out of the shell's history and the process list.
 */
import type { Cli } from '../shared.js';
import { list as collect } from '../shared.js';

// Loaded when a command runs, not when `trawl` starts.
const remote = () => import('../remote.js');

interface Channel {
  channel_id: string;
  name: string;
  kind: string;
  target: string;
  default: boolean;
  state: string;
  health: { last_success_at: string | null; last_failure_at: string | null; consecutive_failures: number };
}

const line = (c: Channel) =>
  `${c.channel_id}  ${c.name}${c.default ? ' (default)' : ''}  ${c.kind}  ${c.target}  ${c.state}  last ok ${c.health.last_success_at?.slice(0, 16) ?? 'never'}  failures in a row ${c.health.consecutive_failures}`;

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8').trim();
}

/** A channel's id from its id or its name (one list call for a name). */
async function idOf(ref: string): Promise<string> {
  if (/^chn_[0-9A-Za-z]{20}$/.test(ref)) return ref;
  const { api } = await remote();
  const { TrawlError } = await import('../../errors.js');
  const { channels } = await api<{ channels: Channel[] }>('GET', '/v1/channels');
  const c = channels.find((x) => x.name === ref);
  if (!c) throw new TrawlError('not_found', `no channel named "${ref}"; see them with: trawl channels list`);
  return c.channel_id;
}

interface CreateOptions {
  url?: string;
  kind?: string;
  to?: string[];
  webhookUrl?: string;
  botToken?: string;
  chatId?: string;
  subjectTemplate?: string;
  bodyTemplate?: string;
  default?: boolean;
}

export function registerChannelsCommands({ program, print }: Cli): void {
  const cmd = program
    .command('channels')
    .description("a Trawl server's notification channels (TRAWL_API_URL, TRAWL_API_KEY)");

  cmd
    .command('list')
    .description('channels by name: kind, where they send (secret part hidden), state and health')
    .action(async () => {
      const { api } = await remote();
      const { channels } = await api<{ channels: Channel[] }>('GET', '/v1/channels');
      print(
        { channels },
        channels.length
          ? channels.map(line).join('\n')
          : 'no channels yet; add one with: trawl channels create NAME --url slack://…',
      );
    });

  cmd
    .command('create')
    .description('add a channel: an Apprise URL (--url), or --kind and its fields')
    .argument('<name>', 'letters, digits, _ . - (monitors name it in notify)')
    .option(
      '--url <url>',
      'mailto://, slack://, discord://, msteams://, tgram://, json://, jsons://; "-" reads it from stdin',
    )
    .option('--kind <kind>', 'email, slack, discord, msteams, telegram or json')
    .option('--to <email>', 'email: a recipient (repeatable)', collect)
    .option('--webhook-url <url>', 'slack, discord, msteams, json: where messages are POSTed; "-" reads it from stdin')
    .option('--bot-token <token>', 'telegram: the bot token; "-" reads it from stdin')
    .option('--chat-id <id>', 'telegram: the chat')
    .option('--subject-template <text>', "the message's subject (email) or title")
    .option('--body-template <text>', "the message's body")
    .option('--default', 'tell it of every monitor of the account')
    .action(async (name: string, o: CreateOptions) => {
      const { api } = await remote();
      const fromStdin = async (v?: string) => (v === '-' ? await readStdin() : v);
      const body = {
        name,
        url: await fromStdin(o.url),
        kind: o.kind,
        to: o.to,
        webhook_url: await fromStdin(o.webhookUrl),
        bot_token: await fromStdin(o.botToken),
        chat_id: o.chatId,
        subject_template: o.subjectTemplate,
        body_template: o.bodyTemplate,
        default: o.default,
      };
      const { channel } = await api<{ channel: Channel }>('POST', '/v1/channels', body);
      print({ channel }, `added ${line(channel)}`);
    });

  cmd
    .command('delete')
    .description('delete a channel; its messages not yet sent are dropped')
    .argument('<channel>', 'its id (chn_…) or name')
    .action(async (ref: string) => {
      const { api } = await remote();
      const id = await idOf(ref);
      await api('DELETE', `/v1/channels/${id}`);
      print({ channel_id: id, deleted: true }, `deleted ${id}`);
    });

  cmd
    .command('test')
    .description('send a test message now and show how the channel answered (exit 1 when not delivered)')
    .argument('<channel>', 'its id (chn_…) or name')
    .action(async (ref: string) => {
      const { api } = await remote();
      const id = await idOf(ref);
      const r = await api<{
        delivered: boolean;
        response_status: number | null;
        error: string | null;
        duration_ms: number;
      }>('POST', `/v1/channels/${id}/test`, {});
      const { status: _s, ...answer } = r as typeof r & { status?: string };
      print(
        { channel_id: id, ...answer },
        r.delivered
          ? `delivered: the channel answered ${r.response_status} in ${r.duration_ms} ms`
          : `not delivered: ${r.response_status === null ? 'no answer' : `the channel answered ${r.response_status}`}${r.error ? ` (${r.error})` : ''}`,
      );
      if (!r.delivered) process.exitCode = 1;
    });
}
