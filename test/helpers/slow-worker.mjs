// A document worker that speaks the pool's protocol like the real one (dist/…/worker.js), but
// spins forever on a page containing "SPIN": it stands in for a hostile page that never
// finishes. Other pages go through the real compiled pipeline.
import { parentPort } from 'node:worker_threads';
import { runPipeline } from '../../dist/engine/document/pipeline.js';

parentPort.on('message', (m) => {
  if (m.source.includes('SPIN')) for (;;);
  parentPort.postMessage({ id: m.id, result: runPipeline(m.source, m.options) });
});
parentPort.postMessage({ warm: 0 });
