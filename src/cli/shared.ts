/**
 * What every command module of `trawl` shares: the program, `--json`, one way to print, and the
 * argument parsers. Kept light (commander and the error catalogue only): index.ts imports every
 * command module on each run, so nothing heavy may load here.
 */
import type { Command } from 'commander';
import { TrawlError } from '../errors.js';

export interface Cli {
  program: Command;
  /** Whether `--json` was given: then stdout carries exactly one JSON object. */
  json(): boolean;
  /** The object with `--json`, else the human line. */
  print(obj: Record<string, unknown>, human: string): void;
}

export function cliOf(program: Command): Cli {
  const json = () => program.opts().json as boolean;
  return {
    program,
    json,
    print: (obj, human) => {
      process.stdout.write(json() ? `${JSON.stringify(obj)}\n` : `${human}\n`);
    },
  };
}

export const positiveInt = (name: string) => (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0)
    throw new TrawlError('invalid_request', `${name}: must be a whole number ≥ 0 (got "${v}")`);
  return n;
};

/** A repeatable option's collector. */
export const list = (v: string, prev: string[] = []) => [...prev, v];
