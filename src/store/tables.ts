/** The store's one Database interface: a table per interface, row aliases beside it. */
import type { Generated, Insertable, Selectable } from 'kysely';

export interface AccountsTable {
  id: string;
  email: string;
  password_hash: string | null;
  credits: number;
  signing_secret: string;
  created_at: string;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  name: string | null;
  /** SHA-256 hex of the key; the key itself is never stored. */
  key_hash: string;
  /** First characters, for display ("trawl_Ab12…"). */
  prefix: string;
  rate_limit_per_minute: number | null;
  created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
}

export interface UsageTable {
  id: Generated<number>;
  account_id: string;
  key_id: string | null;
  endpoint: string;
  status: number;
  credits: number;
  duration_ms: number;
  request_id: string;
  created_at: string;
}

export interface Database {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  usage: UsageTable;
}

export type Account = Selectable<AccountsTable>;
export type ApiKey = Selectable<ApiKeysTable>;
export type NewUsage = Insertable<UsageTable>;
