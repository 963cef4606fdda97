/** What a queue is (index.ts says what queues are for): the interface both adapters implement. */
export interface WorkHandlers {
  /** A run; `retryAt` (ms) when another runner holds it: the queue looks again then. */
  run(runId: string): Promise<{ retryAt?: number } | void>;
  delivery(deliveryId: string, attempts: number): Promise<void>;
}

/** Work waiting or in hand in a queue, for /metrics: `queue` is monitor-runs or webhook-deliveries. */
export interface QueueDepth {
  queue: string;
  state: string;
  count: number;
}

export interface WorkQueue {
  readonly kind: 'embedded' | 'bullmq';
  /** Hand runs out (one bulk write to Redis in scale-out). */
  addRuns(runIds: string[]): Promise<void>;
  addDeliveries(deliveries: { id: string; attempts: number }[]): Promise<void>;
  /** How many more runs the consumers can take soon (admission: the scheduler claims no more). */
  runCapacity(): Promise<number>;
  /** Start doing work with these handlers (the embedded service, a worker). */
  consume(handlers: WorkHandlers): void;
  /** What waits in the queue and what its consumers hold (BullMQ: as Redis counts it, for every process). */
  depth(): Promise<QueueDepth[]>;
  /** Stop taking work, let work in hand finish, release connections. */
  close(): Promise<void>;
}
