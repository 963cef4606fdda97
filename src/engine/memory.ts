/**
 * Giving memory back after large pages. V8 collects garbage when it allocates, not when it is
 * idle: after a burst of 9 MB pages the service sat at 400+ MB for as long as no request
 * came. Once the last large page is done and none has come for a moment, one full collection
 * returns what they left (measured: bench:hostile, part 3). V8's collector is reached through
 * its documented flag, set at run time (no launcher flag needed).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let collect: (() => void) | undefined | null;

function collector(): (() => void) | undefined {
  if (collect === undefined) {
    try {
      setFlagsFromString('--expose-gc');
      collect = runInNewContext('gc') as () => void;
    } catch {
      collect = null;
    }
  }
  return collect ?? undefined;
}

let timer: NodeJS.Timeout | undefined;

/** Ask for a full collection `afterMs` from now (a later ask moves it on: bursts collect once). */
export function collectSoon(afterMs = 1_000): void {
  clearTimeout(timer);
  timer = setTimeout(() => collector()?.(), afterMs);
  timer.unref();
}
