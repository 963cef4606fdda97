/**
 * The engine's file sink and result cache (engine/scrape.ts, engine/result-cache.ts) backed by the
 * store, so that in a scale-out every process reads what any other wrote: a screenshot taken by a
 * worker is served by any API process, and a cached result is shared by all of them. The
 * adapters live in app/: the engine declares the ports, the store keeps the rows, neither names
 * the other.
 */
import type { CrawlStores } from '../engine/crawl/crawl-page.js';
import type { ScrapeResult, FileSink } from '../engine/scrape.js';
import type { CachedResult, ResultCache } from '../engine/result-cache.js';
import { FILE_TYPES, fileKeeper, files, randomBase62, resultCache as cacheRows, type Store } from '../store/index.js';

/**
 * Where `base` is the service's public URL (`https://trawl.example.com`): files are
 * `{base}/v1/files/{id}.{ext}`, their bytes in the file store. `maxAccountBytes`: the account's
 * bound (TRAWL_FILES_MAX_MB_PER_ACCOUNT); a save past it deletes the account's oldest files.
 */
export function fileSink(
  store: Store,
  o: { base: string; retentionHours: number; accountId?: string; maxAccountBytes?: number },
): FileSink {
  return {
    async save(bytes, format) {
      const id = randomBase62(32);
      const { expiresAt } = await fileKeeper.keepFile(store, bytes, {
        id,
        accountId: o.accountId,
        contentType: FILE_TYPES[format],
        retentionHours: o.retentionHours,
        maxAccountBytes: o.maxAccountBytes,
      });
      return { ref: `${o.base.replace(/\/+$/, '')}/v1/files/${id}.${format}`, expiresAt };
    },
  };
}

const FILES_PATH = '/v1/files/';

/** Ids of the files a result points to (its screenshot's and its steps'). */
function fileIds(result: ScrapeResult): string[] {
  const refs = [...(result.screenshot ? [result.screenshot] : []), ...(result.actions?.screenshots ?? [])];
  return refs.flatMap((ref) => {
    const m = /\/v1\/files\/([0-9A-Za-z]{32})\.[a-z]+$/.exec(ref);
    return m ? [m[1]] : [];
  });
}

/**
 * A result's file URLs with `from` (an address the service is reached at) replaced by `to`. The
 * cache keeps them without an address and a hit gets the asking request's: an address comes from
 * the Host header when TRAWL_PUBLIC_URL is unset, and one request's (forged) Host must not reach
 * the other accounts that share the entry.
 */
function rebase(result: ScrapeResult, from: string, to: string): ScrapeResult {
  const prefix = `${from.replace(/\/+$/, '')}${FILES_PATH}`;
  const move = (ref: string) =>
    ref.startsWith(prefix) ? `${to.replace(/\/+$/, '')}${FILES_PATH}${ref.slice(prefix.length)}` : ref;
  return {
    ...result,
    ...(result.screenshot ? { screenshot: move(result.screenshot) } : {}),
    ...(result.actions ? { actions: { ...result.actions, screenshots: result.actions.screenshots.map(move) } } : {}),
  };
}

/** Share of the bound written between two size checks (a check sums the table). */
const CHECK_EVERY = 0.05;

/** The result cache in the store, for one account's requests. Writes past a twentieth of the bound trigger a prune. */
export class StoreResultCache {
  #written = 0;
  #pruning?: Promise<unknown>;

  constructor(
    private readonly store: Store,
    readonly maxBytes: number,
  ) {}

  /** The cache as one account uses it (private entries are marked with its id); `filesBase`: where its request's files are. */
  for(accountId: string, filesBase = ''): ResultCache<ScrapeResult> {
    return {
      get: async (key, notBefore) => {
        const hit = await this.#get(key, notBefore);
        return hit && { ...hit, result: rebase(hit.result, '', filesBase) };
      },
      put: (key, result, expiresAt) => this.#put(key, rebase(result, filesBase, ''), accountId, expiresAt),
    };
  }

  async #get(key: string, notBefore: Date): Promise<CachedResult<ScrapeResult> | undefined> {
    const now = new Date();
    const row = await cacheRows.getEntry(this.store.db, key, notBefore, now);
    if (!row) return undefined;
    const result = JSON.parse(row.body) as ScrapeResult;
    // A file deleted before it expired (its account's bound) makes the entry a miss, not a dead URL.
    const ids = fileIds(result);
    if (ids.length && (await files.liveFiles(this.store.db, ids, now)).size < new Set(ids).size) return undefined;
    return { result, cachedAt: row.created_at };
  }

  async #put(key: string, result: ScrapeResult, accountId: string, expiresAt?: Date): Promise<void> {
    const body = JSON.stringify(result);
    // One entry larger than the whole cache would only push everything else out.
    if (Buffer.byteLength(body) > this.maxBytes) return;
    this.#written += await cacheRows.putEntry(this.store.db, {
      key,
      accountId,
      body,
      createdAt: new Date(),
      expiresAt,
    });
    if (this.#written >= this.maxBytes * CHECK_EVERY && !this.#pruning) {
      this.#written = 0;
      this.#pruning = cacheRows
        .pruneCache(this.store.db, new Date(), this.maxBytes, 500)
        .catch(() => undefined)
        .finally(() => (this.#pruning = undefined));
    }
  }

  /** Waits for a prune under way (tests, shutdown). */
  async settled(): Promise<void> {
    await this.#pruning;
  }
}

/**
 * A job runner's stores per account and job: its screenshots go to the job's `files_base`, and
 * it reads and writes the result cache when the job asks for `max_age`.
 */
export function jobStores(
  store: Store,
  o: { resultCache?: StoreResultCache; fileRetentionHours?: number; filesMaxBytesPerAccount?: number },
): (account: string, job: { files_base?: string; max_age?: number }) => CrawlStores {
  return (account, job) => ({
    files: job.files_base
      ? fileSink(store, {
          base: job.files_base,
          retentionHours: o.fileRetentionHours ?? 24,
          accountId: account,
          maxAccountBytes: o.filesMaxBytesPerAccount,
        })
      : undefined,
    cache:
      job.max_age && o.resultCache
        ? { store: o.resultCache.for(account, job.files_base), maxAgeMs: job.max_age, account }
        : undefined,
  });
}
