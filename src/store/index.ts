export { openStore, storeUnreachable, type Store, type StoreOptions, type Dialect } from './db.js';
export type {
  Account,
  ApiKey,
  Database,
  Job,
  Monitor,
  NotificationChannel,
  ChannelKind,
  MonitorRun,
  WebhookDelivery,
  DeliveryAttempt,
} from './tables.js';
export * as accounts from './repos/accounts.js';
export * as keys from './repos/keys.js';
export * as usage from './repos/usage.js';
export * as monitors from './repos/monitors.js';
export * as runs from './repos/runs.js';
export * as jobs from './repos/jobs.js';
export * as webhooks from './repos/webhooks.js';
export * as channels from './repos/channels.js';
export * as sessions from './repos/sessions.js';
export * as browserSessions from './repos/browser-sessions.js';
export { sha256Hex, digestsEqual, verifyPassword, hashPassword, needsRehash, newId, randomBase62 } from './ids.js';
export * as snapshots from './repos/snapshots.js';
export * as retention from './repos/retention.js';
export * as files from './repos/files.js';
export * as resultCache from './repos/result-cache.js';
export { FILE_ID, FILE_TYPES, type FileExt } from './file-types.js';
export * as fileKeeper from './file-keeper.js';
export { openFile } from './file-keeper.js';
export { DiskFileStore } from './file-store.js';
