/** The redactor (issue 26): every configured secret, in every encoding a URL or a log line gives it. */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { configSecrets, createRedactor } from '../src/redact.js';

const TOKEN = '1234567890|s3cr3tAppSecretValue';
const SECRET = 's3cr3tAppSecretValue';

describe('createRedactor', () => {
  const redact = createRedactor([TOKEN, SECRET]);

  it('redacts the token raw, percent-encoded in either case, double-encoded and mixed', () => {
    for (const form of [
      TOKEN,
      '1234567890%7Cs3cr3tAppSecretValue',
      '1234567890%7cs3cr3tAppSecretValue',
      '1234567890%257Cs3cr3tAppSecretValue',
      '1234567890%25257cs3cr3tAppSecretValue',
      encodeURIComponent(TOKEN),
      encodeURIComponent(encodeURIComponent(TOKEN)),
      // Partly encoded: some letters and digits as %XX, some doubly.
      '%31234567890%7C%73%33cr3t%41pp%2553ecretValue',
      [...TOKEN].map((c) => `%${c.charCodeAt(0).toString(16)}`).join(''),
    ]) {
      const out = redact(`GET https://graph.test/v21.0/x?fields=id&access_token=${form}&x=1 failed`);
      expect(out, form).toBe('GET https://graph.test/v21.0/x?fields=id&access_token=[redacted]&x=1 failed');
    }
  });

  it('redacts the secret part of id|secret alone, and its JSON-quoted form in log lines', () => {
    expect(redact(`the app secret ${SECRET} and s3cr3tApp%53ecretValue`)).toBe(
      'the app secret [redacted] and [redacted]',
    );
    expect(redact(JSON.stringify({ msg: `token=${TOKEN}` }))).toBe('{"msg":"token=[redacted]"}');
    expect(redact('1234567890 alone is an app id, not a secret')).toBe('1234567890 alone is an app id, not a secret');
  });

  it('ignores secrets shorter than 6 characters and empty values', () => {
    const r = createRedactor(['abc12', '', undefined, 'x']);
    expect(r('abc12 x')).toBe('abc12 x');
  });

  it('treats regex metacharacters in secrets literally', () => {
    const r = createRedactor(['a.b*c+d?(e)[f]{g}^$\\|/', 'pa"ss\\word']);
    expect(r('x a.b*c+d?(e)[f]{g}^$\\|/ y')).toBe('x [redacted] y');
    expect(r('x aXb*c+d?(e)[f]{g}^$\\|/ y')).toBe('x aXb*c+d?(e)[f]{g}^$\\|/ y');
    expect(r(`x ${encodeURIComponent('a.b*c+d?(e)[f]{g}^$\\|/')} y`)).toBe('x [redacted] y');
    // JSON escapes of `"` and `\\` (a pino line) and percent-encoding of both.
    expect(r(JSON.stringify({ p: 'pa"ss\\word' }))).toBe('{"p":"[redacted]"}');
    expect(r(`u=${encodeURIComponent('pa"ss\\word')}`)).toBe('u=[redacted]');
  });

  it('redacts non-ASCII secrets by their UTF-8 bytes, and a space as a form-encoded +', () => {
    const r = createRedactor(['clé secrète 42']);
    expect(r(`q=${encodeURIComponent('clé secrète 42')}&f=${new URLSearchParams({ k: 'clé secrète 42' })}`)).toBe(
      'q=[redacted]&f=k=[redacted]',
    );
  });

  it('is the identity without secrets', () => {
    expect(createRedactor([])('nothing %7C to do')).toBe('nothing %7C to do');
  });
});

describe('configSecrets', () => {
  it('reads every secret of the configuration, with the parts that matter', () => {
    const config = loadConfig({
      META_ACCESS_TOKEN: TOKEN,
      LLM_API_KEY: 'sk-llm-key-123456',
      BRAVE_API_KEY: 'BSAbrave-key-7890',
      HTTP_PROXY_URLS:
        'http://user:pa55word-xyz@127.0.0.1:1, http://127.0.0.1:2,http://alice:p%40ssw0rd!@proxy.test:8080',
      SEARXNG_URL: 'http://searx:searx-pass-1@searx.test',
      DATABASE_URL: 'postgres://trawl:db-pass-22@db.test/trawl',
      REDIS_URL: 'redis://:redis-pass-333@redis.test:6379',
      TRAWL_STEALTH_PROXY_URLS: 'http://res:stealth-pass-44@residential.test:8000',
      TRAWL_BROWSER_WS_ENDPOINT: 'ws://browserless.test:3000?token=browserless-token-55',
    });
    const secrets = configSecrets(config);
    for (const s of [
      TOKEN,
      SECRET,
      'sk-llm-key-123456',
      'BSAbrave-key-7890',
      'pa55word-xyz',
      'user:pa55word-xyz',
      'p@ssw0rd!',
      'searx-pass-1',
      'db-pass-22',
      'redis-pass-333',
      'stealth-pass-44',
      'res:stealth-pass-44',
      'browserless-token-55',
    ])
      expect(secrets).toContain(s);
    const redact = createRedactor(secrets);
    expect(redact('via http://user:pa55word-xyz@127.0.0.1:1 and http://alice:p%40ssw0rd!@proxy.test:8080')).toBe(
      'via http://[redacted]@127.0.0.1:1 and http://[redacted]@proxy.test:8080',
    );
    expect(redact('postgres://trawl:db-pass-22@db.test/trawl')).toBe('postgres://trawl:[redacted]@db.test/trawl');
  });

  it('has nothing to redact in a default configuration', () => {
    expect(configSecrets(loadConfig({}))).toEqual([]);
  });
});
