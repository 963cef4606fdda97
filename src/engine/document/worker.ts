/** A document pool's worker thread: runs the pipeline on pages posted to it. */
import { parentPort } from 'node:worker_threads';
import { processHtml } from './index.js';
import type { PooledOptions } from './pool.js';

parentPort!.on('message', (m: { id: number; source: string; options: PooledOptions }) => {
  try {
    parentPort!.postMessage({ id: m.id, result: processHtml(m.source, m.options) });
  } catch (e) {
    parentPort!.postMessage({ id: m.id, error: (e as Error).message });
  }
});
