/** Moved to ../engine/crawl/host-gate.ts (a crawl's host turns, whichever frontier it runs over); kept for old import paths. */
export { HostGate, hostTurn, type Gate } from '../engine/crawl/host-gate.js';
