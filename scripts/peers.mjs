#!/usr/bin/env node
/**
 * Installs the peers: the other tools Trawl's tests and benches run against (Firecrawl's SDK and
 * MCP server, LangChain's loader, standardwebhooks, Readability, Defuddle, Crawlee, jsdom …).
 * Serving needs none of them, so `npm install` does not fetch them (issue 43: a light install);
 * `npm test`, `npm run test:unit` and the benches call this first.
 *
 * They live in peers/ with their own lock; test/ and bench/ reach them through links in their own
 * `node_modules` (Node, TypeScript and Vite all resolve a bare import by walking up from the
 * importing file, and follow a link to its real place for the peer's own imports). Installed again only when peers/package-lock.json
 * changed since the last install.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const PEERS = join(ROOT, 'peers');
const STAMP = join(PEERS, 'node_modules', '.trawl-peers-lock');

const lockHash = createHash('sha256')
  .update(readFileSync(join(PEERS, 'package-lock.json')))
  .digest('hex');
const installed = existsSync(STAMP) && readFileSync(STAMP, 'utf8') === lockHash;

if (!installed) {
  process.stderr.write('Installing the peers (tools the tests and benches compare with) into peers/ …\n');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  execFileSync(npm, ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: PEERS, stdio: 'inherit' });
  writeFileSync(STAMP, lockHash);
}

// Only the peers themselves are linked, not the whole folder: their own dependencies (an older zod,
// undici …) must not shadow the service's for test and bench files.
const names = Object.keys(JSON.parse(readFileSync(join(PEERS, 'package.json'), 'utf8')).devDependencies);
for (const dir of ['test', 'bench']) {
  const modules = join(ROOT, dir, 'node_modules');
  if (existsSync(modules) && lstatSync(modules).isSymbolicLink()) rmSync(modules);
  for (const name of names) {
    const link = join(modules, name);
    const target = relative(dirname(link), join(PEERS, 'node_modules', name));
    let current;
    try {
      current = readlinkSync(link);
    } catch {
      current = undefined;
    }
    if (current === target) continue;
    rmSync(link, { recursive: true, force: true });
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(target, link, 'dir');
  }
}
