/**
 * The one place that knows how work is handed out. Runs and delivery attempts are decided in
 * the store (due times, claims); a queue only carries their ids to whoever does them:
 * in process (embedded) or through BullMQ on Redis to any number of `trawl worker`s.
 * Handing the same id twice is harmless: the handlers claim their work in the store.
 */
export type { QueueDepth, WorkHandlers, WorkQueue } from './work-queue.js';
export { EmbeddedQueue } from './embedded.js';
export { BullQueue, bullQueueDepth, type BullQueueOptions } from './bullmq.js';
