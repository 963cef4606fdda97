/**
 * The admin commands (account, keys, credits, secret): the store only, opened per command and
 * closed after it. They load no engine, server, Chromium driver or MCP SDK, so `keys list` stays fast.
 */
import type { Config } from '../../config.js';
import { loadConfig } from '../../config.js';
import { TrawlError } from '../../errors.js';
import type { Store } from '../../store/index.js';
import { positiveInt, type Cli } from '../shared.js';

// Loaded when a command runs (`await import`), not when `trawl` starts (issue 43).
let S: typeof import('../../store/index.js');
const loadStore = async () => (S ??= await import('../../store/index.js'));

async function withStore<T>(fn: (store: Store, config: Config) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const { openStore } = await loadStore();
  const store = await openStore({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    filesDir: config.filesDir,
  });
  try {
    return await fn(store, config);
  } finally {
    await store.close();
  }
}

async function accountByEmail(store: Store, email: string) {
  const row = await S.accounts.findAccountByEmail(store.db, email);
  if (!row)
    throw new TrawlError(
      'not_found',
      `no account with email ${email}; create it with: trawl account create --email ${email}`,
    );
  return row;
}

/** Whether a key's stored display prefix ("trawl_AbCdEf…") and what the caller typed (a prefix or the whole key) agree. */
function matchesPrefix(stored: string, typed: string): boolean {
  const p = stored.replace(/…$/, '');
  return typed.startsWith(p) || p.startsWith(typed);
}

export function registerAdminCommands({ program, print }: Cli): void {
  const account = program.command('account').description('manage accounts');
  account
    .command('create')
    .requiredOption('--email <email>', 'account email')
    .option('--password <password>', 'password to log in to the dashboard (8 to 200 characters)')
    .option('--credits <n>', 'starting credits', positiveInt('credits'), 0)
    .action(async (o: { email: string; password?: string; credits: number }) => {
      if (!/^[^\s@]+@[^\s@]+$/.test(o.email))
        throw new TrawlError('invalid_request', `email: "${o.email}" is not an email address`);
      if (o.password !== undefined && (o.password.length < 8 || o.password.length > 200))
        throw new TrawlError('invalid_request', 'password: must be 8 to 200 characters');
      await withStore(async (store) => {
        if (await S.accounts.findAccountByEmail(store.db, o.email))
          throw new TrawlError('invalid_request', `email: an account with ${o.email} already exists`);
        const row = await S.accounts.createAccount(store.db, {
          email: o.email,
          password: o.password,
          credits: o.credits,
        });
        print(
          { account_id: row.id, email: row.email, credits: row.credits },
          `created account ${row.id} (${row.email}) with ${row.credits} credits`,
        );
      });
    });

  account
    .command('password')
    .description('set or reset the dashboard password of an account (ends its sessions)')
    .requiredOption('--email <email>', 'account email')
    .requiredOption('--password <password>', 'the new password (8 to 200 characters)')
    .action(async (o: { email: string; password: string }) => {
      if (o.password.length < 8 || o.password.length > 200)
        throw new TrawlError('invalid_request', 'password: must be 8 to 200 characters');
      await withStore(async (store) => {
        const row = await accountByEmail(store, o.email);
        await S.accounts.setPasswordHash(store.db, row.id, await S.hashPassword(o.password));
        await S.sessions.endAllSessions(store.db, row.id);
        print(
          { account_id: row.id, email: row.email },
          `password set for ${row.email}; its dashboard sessions were ended`,
        );
      });
    });

  account
    .command('limits')
    .description(
      "set the highest rate limit (requests per minute) the account's keys may have; users cannot go above it",
    )
    .requiredOption('--email <email>', 'account email')
    .requiredOption(
      '--rate-limit-ceiling <perMinute|default>',
      'the ceiling, or "default" for TRAWL_RATE_LIMIT_PER_MINUTE',
    )
    .action(async (o: { email: string; rateLimitCeiling: string }) => {
      const ceiling = o.rateLimitCeiling === 'default' ? null : positiveInt('rate-limit-ceiling')(o.rateLimitCeiling);
      if (ceiling === 0)
        throw new TrawlError('invalid_request', 'rate-limit-ceiling: must be at least 1 (or "default")');
      await withStore(async (store, config) => {
        const acc = await accountByEmail(store, o.email);
        await S.accounts.setRateLimitCeiling(store.db, acc.id, ceiling);
        const effective = ceiling ?? config.rateLimitPerMinute;
        const above = await S.accounts.countKeysAbove(store.db, acc.id, effective);
        print(
          { account_id: acc.id, rate_limit_ceiling: effective, keys_above_ceiling: above },
          `${acc.email}: keys may make at most ${effective} requests per minute` +
            (above ? ` (${above} key${above > 1 ? 's' : ''} set higher now run at ${effective})` : ''),
        );
      });
    });

  const keysCmd = program.command('keys').description('manage API keys');

  keysCmd
    .command('list')
    .description("an account's keys: id, prefix, name, rate limit, created, last used, revoked (never the key itself)")
    .requiredOption('--email <email>', 'account email')
    .action(async (o: { email: string }) => {
      await withStore(async (store) => {
        const acc = await accountByEmail(store, o.email);
        const rows = await S.keys.listKeys(store.db, acc.id);
        const list = rows.map((r) => ({
          key_id: r.id,
          prefix: r.prefix,
          name: r.name,
          rate_limit_per_minute: r.rate_limit_per_minute,
          created_at: r.created_at,
          last_used_at: r.last_used_at,
          revoked_at: r.revoked_at,
        }));
        const human = list.length
          ? list
              .map(
                (k) =>
                  `${k.key_id}  ${k.prefix}  ${k.revoked_at ? `revoked ${k.revoked_at.slice(0, 10)}` : 'active'}  created ${k.created_at.slice(0, 10)}  last used ${k.last_used_at?.slice(0, 10) ?? 'never'}${k.name ? `  ${k.name}` : ''}`,
              )
              .join('\n')
          : `${acc.email} has no keys; create one with: trawl keys create --email ${acc.email}`;
        print({ account_id: acc.id, keys: list }, human);
      });
    });

  keysCmd
    .command('revoke')
    .description('revoke a key by its id (key_…) or the start of the key (trawl_…, as keys list shows it)')
    .requiredOption('--email <email>', 'account email')
    .argument('<key>', 'key id, or the key / its prefix')
    .action(async (which: string, o: { email: string }) => {
      await withStore(async (store) => {
        const acc = await accountByEmail(store, o.email);
        const rows = await S.keys.listKeys(store.db, acc.id);
        const start = which.replace(/…$/, '');
        const found = rows.filter(
          (r) => r.id === which || (start.length >= 8 && start.startsWith('trawl_') && matchesPrefix(r.prefix, start)),
        );
        if (!found.length)
          throw new TrawlError(
            'not_found',
            `no key of ${acc.email} is ${which.slice(0, 20)}; trawl keys list --email ${acc.email} shows their ids and prefixes`,
          );
        if (found.length > 1)
          throw new TrawlError(
            'invalid_request',
            `${which.slice(0, 20)} names ${found.length} keys (${found.map((r) => r.id).join(', ')}); give the key id`,
          );
        const key = found[0];
        if (key.revoked_at) {
          print(
            { key_id: key.id, revoked_at: key.revoked_at },
            `${key.id} (${key.prefix}) was already revoked on ${key.revoked_at}`,
          );
          return;
        }
        await S.keys.revokeKey(store.db, acc.id, key.id);
        const after = (await S.keys.listKeys(store.db, acc.id)).find((r) => r.id === key.id);
        print(
          { key_id: key.id, revoked_at: after?.revoked_at ?? null },
          `revoked ${key.id} (${key.prefix}); requests with it now get 401`,
        );
      });
    });

  keysCmd
    .command('create')
    .requiredOption('--email <email>', 'account email')
    .option('--name <name>', 'a name to recognise the key by')
    .option('--rate-limit <perMinute>', 'requests per minute for this key', positiveInt('rate-limit'))
    .action(async (o: { email: string; name?: string; rateLimit?: number }) => {
      if (o.rateLimit !== undefined && o.rateLimit < 1)
        throw new TrawlError('invalid_request', 'rate-limit: must be at least 1');
      await withStore(async (store, config) => {
        const acc = await accountByEmail(store, o.email);
        const ceiling = S.accounts.rateLimitCeiling(acc, config.rateLimitPerMinute);
        if (o.rateLimit !== undefined && o.rateLimit > ceiling) {
          throw new TrawlError(
            'invalid_request',
            `rate-limit: above this account's ceiling of ${ceiling} per minute; raise it first with: trawl account limits --email ${acc.email} --rate-limit-ceiling ${o.rateLimit}`,
          );
        }
        const { key, row } = await S.keys.createApiKey(store.db, {
          accountId: acc.id,
          name: o.name,
          rateLimitPerMinute: o.rateLimit,
        });
        print({ key, key_id: row.id }, `${key}\n(key ${row.id}; shown once, store it now)`);
      });
    });

  program
    .command('credits')
    .description('manage credits')
    .command('add')
    .requiredOption('--email <email>', 'account email')
    .argument('<n>', 'credits to add', positiveInt('n'))
    .action(async (n: number, o: { email: string }) => {
      await withStore(async (store) => {
        const acc = await accountByEmail(store, o.email);
        const credits = await S.accounts.addCredits(store.db, acc.id, n);
        print({ credits }, `${acc.email} now has ${credits} credits`);
      });
    });

  const secret = program.command('secret').description('the webhook signing secret');
  secret
    .command('show')
    .requiredOption('--email <email>', 'account email')
    .action(async (o: { email: string }) => {
      await withStore(async (store) => {
        const acc = await accountByEmail(store, o.email);
        print({ signing_secret: acc.signing_secret }, acc.signing_secret);
      });
    });
  secret
    .command('rotate')
    .requiredOption('--email <email>', 'account email')
    .action(async (o: { email: string }) => {
      await withStore(async (store, config) => {
        const acc = await accountByEmail(store, o.email);
        const overlapMs = config.webhookSecretOverlapHours * 3600_000;
        const s = await S.accounts.rotateSigningSecret(store.db, acc.id, overlapMs);
        const until = overlapMs > 0 ? new Date(Date.now() + overlapMs).toISOString() : null;
        print(
          { signing_secret: s, previous_valid_until: until },
          until ? `${s}\n(the previous secret still signs beside it until ${until})` : s,
        );
      });
    });
}
