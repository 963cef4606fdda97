/** A caller of a running service's jobs API with one key: JSON in and out, a job waited for, its pages read whole. */
export interface JobClient {
  call(method: string, path: string, body?: unknown): Promise<any>;
  /** The job once it is no longer queued or running (throws after `timeoutMs`). */
  finished(id: string, timeoutMs?: number): Promise<any>;
  /** Every page of the job, following next_cursor to the end. */
  pages(id: string): Promise<any[]>;
}

export function jobClient(base: string, key: string): JobClient {
  const call = async (method: string, path: string, body?: unknown) =>
    (await (
      await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      })
    ).json()) as any;
  return {
    call,
    async finished(id, timeoutMs = 240_000) {
      for (const end = Date.now() + timeoutMs; ;) {
        const job = (await call('GET', `/v1/jobs/${id}?limit=1`)).job;
        if (job.state !== 'queued' && job.state !== 'running') return job;
        if (Date.now() > end) throw new Error(`job still ${job.state}: ${JSON.stringify(job.progress)}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async pages(id) {
      const pages: any[] = [];
      let cursor: string | null = null;
      do {
        const r: any = await call('GET', `/v1/jobs/${id}?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
        pages.push(...r.pages);
        cursor = r.next_cursor;
      } while (cursor);
      return pages;
    },
  };
}
