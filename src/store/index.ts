export { openStore, type Store, type StoreOptions, type Dialect } from './db.js';
export type { Account, ApiKey, Database } from './tables.js';
export * as accounts from './repos/accounts.js';
export * as keys from './repos/keys.js';
export * as usage from './repos/usage.js';
export { sha256Hex, digestsEqual, verifyPassword } from './ids.js';
