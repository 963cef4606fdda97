import { linearRegExp } from './linear-regexp.js';

/**
 * include_paths / exclude_paths: globs on the URL path. `**` matches across segments, `*`
 * within one, `?` one character; a pattern without a leading slash matches anywhere below.
 * A directory's trailing slash is optional (`/docs` matches `/docs/`): the crawler keeps paths
 * as sites write them, and a caller naming a section should not have to guess which form.
 */
export function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*') {
      if (glob[i + 1] === '*') {
        i++;
        if (glob[i + 1] === '/') {
          // "**/" is zero or more whole segments.
          re += '(?:.*/)?';
          i++;
        } else re += '.*';
      } else re += '[^/]*';
    } else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  const end = glob.endsWith('/') ? '$' : '/?$';
  // Linear time: `**a**a**a…` would backtrack for minutes on a long path.
  return linearRegExp(glob.startsWith('/') ? `^${re}${end}` : `(?:^|/)${re}${end}`);
}

export function pathFilter(include: string[] = [], exclude: string[] = []): (path: string) => boolean {
  const inc = include.map(globToRegExp);
  const exc = exclude.map(globToRegExp);
  return (path) => (!inc.length || inc.some((r) => r.test(path))) && !exc.some((r) => r.test(path));
}
