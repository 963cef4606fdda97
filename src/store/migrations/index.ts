/**
 * Migrations, in name order, frozen in time: they take `Kysely<any>` and import no app code.
 * Kept in code (not a folder scan) so the compiled service finds them wherever it runs.
 */
import type { Migration } from 'kysely';
import * as m001 from './2026-11-22T0100-accounts-keys-usage.js';
import * as m002 from './2026-11-24T0100-monitors.js';
import * as m003 from './2026-11-24T0200-sessions.js';
import * as m004 from './2026-11-26T0100-account-limits.js';
import * as m005 from './2026-11-26T0200-webhooks.js';
import * as m006 from './2026-11-26T0300-retention.js';
import * as m007 from './2026-11-26T0400-run-claims.js';
import * as m008 from './2026-11-26T0500-jobs.js';
import * as m009 from './2026-11-26T0600-delivery-fairness.js';
import * as m010 from './2026-11-26T0700-job-webhooks.js';
import * as m011 from './2026-11-26T0800-files-cache.js';
import * as m012 from './2026-11-27T0100-job-truncated.js';
import * as m013 from './2026-11-28T0100-crawl-reach.js';
import * as m014 from './2026-11-28T0200-job-held.js';
import * as m015 from './2026-11-28T0300-job-event-replay.js';
import * as m016 from './2026-11-28T0400-file-store.js';
import * as m017 from './2026-11-29T0200-notification-channels.js';
import * as m018 from './2026-11-29T0300-browser-sessions.js';
import * as m019 from './2026-11-29T0400-session-login-tried.js';

export const MIGRATIONS: Record<string, Migration> = {
  '2026-11-22T0100-accounts-keys-usage': m001,
  '2026-11-24T0100-monitors': m002,
  '2026-11-24T0200-sessions': m003,
  '2026-11-26T0100-account-limits': m004,
  '2026-11-26T0200-webhooks': m005,
  '2026-11-26T0300-retention': m006,
  '2026-11-26T0400-run-claims': m007,
  '2026-11-26T0500-jobs': m008,
  '2026-11-26T0600-delivery-fairness': m009,
  '2026-11-26T0700-job-webhooks': m010,
  '2026-11-26T0800-files-cache': m011,
  '2026-11-27T0100-job-truncated': m012,
  '2026-11-28T0100-crawl-reach': m013,
  '2026-11-28T0200-job-held': m014,
  '2026-11-28T0300-job-event-replay': m015,
  '2026-11-28T0400-file-store': m016,
  '2026-11-29T0200-notification-channels': m017,
  '2026-11-29T0300-browser-sessions': m018,
  '2026-11-29T0400-session-login-tried': m019,
};
