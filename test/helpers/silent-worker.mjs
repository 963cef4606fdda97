// A document worker that never answers: stands in for a page that never finishes processing.
import { parentPort } from 'node:worker_threads';
parentPort.on('message', () => {});
