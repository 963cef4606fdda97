/**
 * The order the document pool offers its queue to the workers: fair between owners, smallest
 * (aged) page first within an owner's share. Pure, so the rule can be read (and changed) apart
 * from the workers' bookkeeping in pool.ts.
 */
import { AGEING_BYTES_PER_SECOND, type Job, type Slot } from './pool-tuning.js';

/**
 * The queue in the order jobs are offered to the workers. Each owner's jobs by size, aged
 * (each second waiting counts as AGEING_BYTES_PER_SECOND bytes less); an owner's k-th job
 * ranks k after what it already has on the workers (`slots`), and ranks come first: the one page
 * of an owner with nothing on the workers goes before the 40 PDFs another owner sent at once.
 */
export function fairOrder(queue: readonly Job[], slots: readonly Slot[], now: number): Job[] {
  if (queue.length < 2) return [...queue];
  const key = (job: Job) => job.size - ((now - job.queuedAt) / 1000) * AGEING_BYTES_PER_SECOND;
  const held = new Map<string, number>();
  for (const s of slots) for (const j of s.jobs) held.set(j.owner, (held.get(j.owner) ?? 0) + 1);
  const byOwner = new Map<string, { job: Job; key: number }[]>();
  for (const job of queue) {
    let mine = byOwner.get(job.owner);
    if (!mine) byOwner.set(job.owner, (mine = []));
    mine.push({ job, key: key(job) });
  }
  const ranked: { job: Job; key: number; rank: number }[] = [];
  for (const [owner, mine] of byOwner) {
    mine.sort((a, b) => a.key - b.key);
    const base = held.get(owner) ?? 0;
    mine.forEach((m, k) => ranked.push({ ...m, rank: base + k }));
  }
  if (byOwner.size > 1) ranked.sort((a, b) => a.rank - b.rank || a.key - b.key);
  return ranked.map((r) => r.job);
}
