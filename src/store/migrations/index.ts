/**
 * Migrations, in name order, frozen in time: they take `Kysely<any>` and import no app code.
 * Kept in code (not a folder scan) so the compiled service finds them wherever it runs.
 */
import type { Migration } from 'kysely';
import * as m001 from './2026-11-22T0100-accounts-keys-usage.js';

export const MIGRATIONS: Record<string, Migration> = {
  '2026-11-22T0100-accounts-keys-usage': m001,
};
