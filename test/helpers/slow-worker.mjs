// A document worker that speaks the pool's protocol like the real one (dist/…/worker.js), but
// spins forever on a page containing "SPIN": it stands in for a hostile page that never
// finishes. Other pages go through the real compiled pipeline.
import { parentPort } from 'node:worker_threads';
import { runPipeline } from '../../dist/engine/document/pipeline.js';

const waiting = [];
let running = false;
parentPort.on('message', (m) => {
  if ('cancel' in m) {
    const i = waiting.findIndex((j) => j.id === m.cancel);
    if (i >= 0) waiting.splice(i, 1);
    return;
  }
  waiting.push(m);
  if (!running) next();
});
function next() {
  running = true;
  setImmediate(() => {
    const m = waiting.shift();
    if (!m) return void (running = false);
    if (m.source.includes('SPIN')) for (;;);
    parentPort.postMessage({ id: m.id, result: runPipeline(m.source, m.options) });
    if (waiting.length) next();
    else running = false;
  });
}
parentPort.postMessage({ warm: 0 });
