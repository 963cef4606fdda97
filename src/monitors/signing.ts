/** Moved to ../webhooks/signing.ts (one outbox for monitor and job events); kept for old import paths. */
export * from '../webhooks/signing.js';
