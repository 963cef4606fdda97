export { openStore, type Store, type StoreOptions, type Dialect } from './db.js';
export type { Account, ApiKey, Database, Monitor, MonitorRun, WebhookDelivery, DeliveryAttempt } from './tables.js';
export * as accounts from './repos/accounts.js';
export * as keys from './repos/keys.js';
export * as usage from './repos/usage.js';
export * as monitors from './repos/monitors.js';
export * as webhooks from './repos/webhooks.js';
export * as sessions from './repos/sessions.js';
export { sha256Hex, digestsEqual, verifyPassword, hashPassword, needsRehash, newId } from './ids.js';
