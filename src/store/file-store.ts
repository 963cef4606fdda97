/**
 * Where screenshots' bytes are kept (issue 39): a folder, the data folder's `files/` by default
 * (TRAWL_FILES_DIR), each file at `<root>/<first two characters of its id>/<id>`. Bytes are
 * written and read as streams by the thread pool, never whole on the event loop, and no SQL is
 * here: the rows that say what a file is and whose it is are the repos' (repos/files.ts). A write
 * goes to `<root>/.tmp/` first and is renamed into place once its row exists, so a crash leaves
 * either a temporary file (swept after an hour) or a row whose file is missing (a 404 until it
 * expires), never a kept file nobody knows.
 */
import { mkdir, open, readdir, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';

/** Ids the store accepts: base62 (file-types.ts's FILE_ID), so an id is a safe file name. */
const ID = /^[0-9A-Za-z]{16,64}$/;
const SHARD = /^[0-9A-Za-z]{2}$/;
/** Ids asked about at once when the sweep looks for files no row knows. */
const SWEEP_BATCH = 500;

export interface StagedFile {
  /** Gives the bytes their place (once their row is written). */
  commit(): Promise<void>;
  /** Removes the temporary file (its row could not be written). */
  discard(): Promise<void>;
}

export interface StoredFile {
  stream: Readable;
  size: number;
}

export interface SweepStats {
  /** Temporary files of writes that never finished. */
  temporary: number;
  /** Kept files whose row is gone (deleted while their bytes could not be). */
  orphans: number;
}

const gone = (e: unknown) => (e as NodeJS.ErrnoException)?.code === 'ENOENT';

function checked(id: string): string {
  if (!ID.test(id)) throw new Error(`not a file id: ${id.slice(0, 70)}`);
  return id;
}

export class DiskFileStore {
  readonly #tmp: string;

  constructor(readonly root: string) {
    this.#tmp = join(root, '.tmp');
  }

  #path(id: string): string {
    return join(this.root, id.slice(0, 2), checked(id));
  }

  async stage(id: string, bytes: Buffer): Promise<StagedFile> {
    const tmp = join(this.#tmp, checked(id));
    await mkdir(this.#tmp, { recursive: true });
    await writeFile(tmp, bytes, { flag: 'wx' });
    const path = this.#path(id);
    return {
      commit: async () => {
        await mkdir(join(this.root, id.slice(0, 2)), { recursive: true });
        await rename(tmp, path);
      },
      discard: () => unlink(tmp).catch(() => undefined),
    };
  }

  /** The file as a stream (64 KiB reads on the thread pool), or undefined when it is not there. */
  async open(id: string): Promise<StoredFile | undefined> {
    const handle = await open(this.#path(id), 'r').catch((e) => {
      if (gone(e)) return undefined;
      throw e;
    });
    if (!handle) return undefined;
    try {
      const { size } = await handle.stat();
      // The stream owns the handle from here: it closes it at the end, on an error, or when destroyed.
      return { stream: handle.createReadStream(), size };
    } catch (e) {
      await handle.close().catch(() => undefined);
      throw e;
    }
  }

  /** Deletes the files of these ids (one already gone is no error). */
  async remove(ids: string[]): Promise<void> {
    await Promise.all(
      ids.map((id) =>
        unlink(this.#path(id)).catch((e) => {
          if (!gone(e)) throw e;
        }),
      ),
    );
  }

  /**
   * Temporary files older than `before`, and kept files older than `before` whose id `known`
   * does not return (their rows were deleted but their bytes were not: a crash between the two).
   */
  async sweep(before: Date, known: (ids: string[]) => Promise<Set<string>>): Promise<SweepStats> {
    const stats: SweepStats = { temporary: 0, orphans: 0 };
    const old = async (path: string) => {
      const s = await stat(path).catch(() => undefined);
      return !!s && s.mtimeMs < before.getTime();
    };
    for (const name of await list(this.#tmp))
      if (ID.test(name) && (await old(join(this.#tmp, name))))
        if (
          await unlink(join(this.#tmp, name)).then(
            () => true,
            () => false,
          )
        )
          stats.temporary++;
    for (const shard of await list(this.root)) {
      if (!SHARD.test(shard)) continue;
      const ids = (await list(join(this.root, shard))).filter((n) => ID.test(n) && n.startsWith(shard));
      for (let i = 0; i < ids.length; i += SWEEP_BATCH) {
        const batch = ids.slice(i, i + SWEEP_BATCH);
        const kept = await known(batch);
        for (const id of batch)
          if (!kept.has(id) && (await old(this.#path(id))))
            if (
              await unlink(this.#path(id)).then(
                () => true,
                () => false,
              )
            )
              stats.orphans++;
      }
    }
    return stats;
  }
}

async function list(dir: string): Promise<string[]> {
  return readdir(dir).catch((e) => {
    if (gone(e)) return [];
    throw e;
  });
}
