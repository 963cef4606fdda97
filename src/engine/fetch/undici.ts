/**
 * The parts of undici the HTTP client uses, loaded on their own. undici's entry point loads
 * every feature it has (fetch, WebSocket, caches, mocks, …): 19 MB of resident memory in a
 * fresh process where the dispatchers below take 11 — a crawl's peak RSS is ~160 MB, so
 * that is 5 % of it, in every process that makes a request. The paths are undici 7's own
 * (its package has no exports map); the HTTP client's tests exercise each of them.
 */
import { createRequire } from 'node:module';
import type * as Undici from 'undici';

const require = createRequire(import.meta.url);

export const Agent: typeof Undici.Agent = require('undici/lib/dispatcher/agent.js');
export const ProxyAgent: typeof Undici.ProxyAgent = require('undici/lib/dispatcher/proxy-agent.js');
export const buildConnector: typeof Undici.buildConnector = require('undici/lib/core/connect.js');
export const Pool: typeof Undici.Pool = require('undici/lib/dispatcher/pool.js');
export type Pool = Undici.Pool;
export type Agent = Undici.Agent;
export type ProxyAgent = Undici.ProxyAgent;

// A ProxyAgent opens its tunnel with Dispatcher#connect, one of the methods undici's entry
// point puts on every dispatcher: put them there as it does (same functions, so loading the
// entry point too changes nothing).
const DispatcherBase: { prototype: object } = require('undici/lib/dispatcher/dispatcher.js');
Object.assign(DispatcherBase.prototype, require('undici/lib/api/index.js'));
