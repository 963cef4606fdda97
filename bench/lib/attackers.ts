/**
 * bench:abuse's attackers, in a process of their own (so the load they make is not measured as
 * the bystander's latency): 4 loops downloading SHOT_URL, 3 loops sending a BODY_MB batch body
 * from KEY (an account with 0 credits) to BASE. Runs until SIGTERM, then prints its samples as JSON.
 */
const { BASE, KEY, SHOT_URL, BODY_FILE } = process.env;
const fs = await import('node:fs');
const body = BODY_FILE ? fs.readFileSync(BODY_FILE) : undefined;
type Sample = { ms: number; status: number };
const downloads: Sample[] = [];
const bodies: Sample[] = [];
let running = true;
const timed = async (work: () => Promise<number>): Promise<Sample> => {
  const t = performance.now();
  const status = await work().catch(() => 0);
  return { ms: performance.now() - t, status };
};
const loop = async (each: () => Promise<void>) => {
  while (running) await each();
};
const loops = [
  ...(SHOT_URL ? [0, 1, 2, 3] : []).map(() =>
    loop(async () => {
      downloads.push(
        await timed(async () => {
          const res = await fetch(SHOT_URL!, { signal: AbortSignal.timeout(120_000) });
          await res.arrayBuffer();
          return res.status;
        }),
      );
    }),
  ),
  ...(body ? [0, 1, 2] : []).map(() =>
    loop(async () => {
      bodies.push(
        await timed(async () => {
          const res = await fetch(`${BASE}/v1/batch/scrape`, {
            method: 'POST',
            headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
            body: new Uint8Array(body!.buffer as ArrayBuffer, body!.byteOffset, body!.length),
            signal: AbortSignal.timeout(120_000),
          });
          await res.arrayBuffer();
          return res.status;
        }),
      );
    }),
  ),
];
process.once('SIGTERM', async () => {
  running = false;
  await Promise.race([Promise.all(loops), new Promise((r) => setTimeout(r, 5000))]);
  process.stdout.write(JSON.stringify({ downloads, bodies }));
  process.exit(0);
});
