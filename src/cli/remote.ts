/** The CLI as a client of a Trawl server (TRAWL_API_URL, TRAWL_API_KEY): `crawl --async` and `jobs`. */
import { ERROR_CATALOGUE, TrawlError, type ErrorCode } from '../errors.js';
import { progressBar } from './progress.js';

/** The fields of a job's answer (docs/API.md) that the CLI reads. */
export interface RemoteJob {
  job_id: string;
  state: string;
  progress: { done: number; failed: number; queued: number };
}

/** A call to the Trawl server named by TRAWL_API_URL with TRAWL_API_KEY; its error answer becomes the CLI's error. */
export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const base = process.env.TRAWL_API_URL;
  const key = process.env.TRAWL_API_KEY;
  if (!base || !key)
    throw new TrawlError(
      'invalid_request',
      'set TRAWL_API_URL (e.g. http://127.0.0.1:3000) and TRAWL_API_KEY to talk to a Trawl server',
    );
  const res = await fetch(new URL(path, base), {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  }).catch((e: Error) => {
    throw new TrawlError('fetch_failed', `could not reach ${base}: ${e.message}`);
  });
  const answer = await res.json().catch(() => ({}));
  if (!res.ok) {
    const { error, detail } = answer as { error?: unknown; detail?: string };
    throw new TrawlError(
      typeof error === 'string' && error in ERROR_CATALOGUE ? (error as ErrorCode) : 'fetch_failed',
      detail ?? `${base} answered HTTP ${res.status}`,
    );
  }
  return answer as T;
}

/** Polls a job with a progress bar (on a terminal) until it ends; returns it. */
export async function followProgress(id: string, limit: number): Promise<RemoteJob> {
  const bar = progressBar();
  try {
    for (;;) {
      const { job } = await api<{ job: RemoteJob }>('GET', `/v1/jobs/${id}?limit=1`);
      bar.update(job.progress.done + job.progress.failed, job.progress.queued, limit);
      if (!['queued', 'running'].includes(job.state)) return job;
      await new Promise((r) => setTimeout(r, 500));
    }
  } finally {
    bar.done();
  }
}
