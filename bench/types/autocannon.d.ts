/** The part of autocannon's API that bench/scrape.ts uses (the package ships no types). */
declare module 'autocannon' {
  interface Options {
    url: string;
    method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS';
    headers?: Record<string, string>;
    body?: string | Buffer;
    connections?: number;
    duration?: number;
  }
  /** Percentiles and mean of one measure over the run. */
  interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p50: number;
    p90: number;
    p99: number;
  }
  interface Result {
    requests: Histogram;
    latency: Histogram;
    throughput: Histogram;
    errors: number;
    timeouts: number;
    non2xx: number;
    duration: number;
  }
  /** Without a callback it returns a promise of the result. */
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
