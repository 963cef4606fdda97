/**
 * The study/measure split of every fixture set: a page's half comes from a hash of its id
 * (never from its content), so the split is fixed across runs and sessions. Rules are
 * written while looking at the study half only; a change is kept when it also helps the
 * measure half, which stands in for the benchmark pages we do not have.
 */
import { createHash } from 'node:crypto';

export type Half = 'study' | 'measure';

export function halfOf(id: string): Half {
  return createHash('sha256').update(id).digest()[0] % 2 === 0 ? 'study' : 'measure';
}

/** `--half study|measure` on the command line restricts a run to one half. */
export function halfArg(argv: string[]): Half | undefined {
  const i = argv.indexOf('--half');
  const v = i >= 0 ? argv[i + 1] : undefined;
  if (v !== undefined && v !== 'study' && v !== 'measure') throw new Error('--half: study or measure');
  return v;
}
