import { PostgresAdapter } from 'kysely';
import type { Db } from '../accounts.js';

/** PostgreSQL has the one-statement fast paths (./attempt-postgres.ts). */
export const postgres = (db: Db) => db.getExecutor().adapter instanceof PostgresAdapter;
