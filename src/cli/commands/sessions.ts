/**
 * `trawl sessions`: a Trawl server's saved browser sessions (issue 44), over its API. A session is
 * made from a file: a Playwright storageState, a cookie list, or a login recipe with its secrets;
 * what is printed never holds a value (the server shows names, domains, counts and times only).
 */
import { api } from '../remote.js';
import type { Cli } from '../shared.js';

interface CreateFlags {
  storageState?: string;
  cookies?: string;
  login?: string;
  site?: string[];
}

const line = (v: unknown) => process.stdout.write(`${JSON.stringify(v)}\n`);

export function registerSessionsCommands({ program }: Cli): void {
  const cmd = program
    .command('sessions')
    .description("a Trawl server's saved browser sessions (TRAWL_API_URL, TRAWL_API_KEY)");
  cmd
    .command('create')
    .description(
      'save a session from a file: --storage-state, --cookies or --login (a recipe {"url","actions","secrets"})',
    )
    .argument('<name>')
    .option('--storage-state <file>', 'a Playwright storageState JSON (context.storageState({ path }))')
    .option('--cookies <file>', 'a JSON array of cookies {"name","value","domain",…}')
    .option('--login <file>', 'a JSON login recipe {"url","actions","secrets"}; run in the browser by the server')
    .option('--site <host...>', 'the sites it belongs to (default: from the cookies or the login URL)')
    .action(async (name: string, o: CreateFlags) => {
      const { readFile } = await import('node:fs/promises');
      const given = (['storageState', 'cookies', 'login'] as const).filter((k) => o[k]);
      if (given.length !== 1) {
        const { invalidRequest } = await import('../../errors.js');
        throw invalidRequest('give exactly one of --storage-state, --cookies or --login');
      }
      const key = given[0]!;
      const file = o[key]!;
      const content = JSON.parse(await readFile(file, 'utf8')) as unknown;
      const field = key === 'storageState' ? 'storage_state' : key;
      const r = await api<{ session: unknown }>('POST', '/v1/sessions', {
        name,
        ...(o.site ? { sites: o.site } : {}),
        [field]: content,
      });
      line(r.session);
    });
  cmd
    .command('list')
    .description("the account's sessions, one JSON line each")
    .action(async () => {
      const r = await api<{ sessions: unknown[] }>('GET', '/v1/sessions');
      for (const s of r.sessions) line(s);
    });
  cmd
    .command('delete')
    .description('delete a session')
    .argument('<name>')
    .action(async (name: string) => {
      line(await api('DELETE', `/v1/sessions/${encodeURIComponent(name)}`));
    });
  cmd
    .command('refresh')
    .description("log in again with the session's recipe")
    .argument('<name>')
    .action(async (name: string) => {
      line((await api<{ session: unknown }>('POST', `/v1/sessions/${encodeURIComponent(name)}/refresh`, {})).session);
    });
}
