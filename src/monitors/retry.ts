/** Moved to ../webhooks/retry.ts (one retry schedule for monitor and job events); kept for old import paths. */
export * from '../webhooks/retry.js';
