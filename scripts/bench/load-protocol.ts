/** Messages between the bench (server side) and the forked load generator. */

export interface ExecutionJob {
  requestId: number;
  lines: Array<{ barcode: string; quantity: number }>;
}

export type Workload =
  /** POST /outbound/request with `linesPerRequest` distinct random materials, quantity 1 each. */
  | { kind: 'submit'; materialIds: number[]; linesPerRequest: number }
  /** GET /outbound/scan of a random barcode against one open request. */
  | { kind: 'scan'; barcodes: string[]; requestId: number }
  /** approve then POST /outbound for each pending request; client i takes jobs i, i + clients, … */
  | { kind: 'execute'; jobs: ExecutionJob[] }
  /** The same authenticated GET again and again (the floor: token, user reload, HTTP). */
  | { kind: 'get'; label: string; path: string };

export interface LoadPlan {
  baseUrl: string;
  /** One bearer token per concurrent client: every client is its own user. */
  tokens: string[];
  warmupMs: number;
  durationMs: number;
  workload: Workload;
}

export interface StepStats {
  /** Which call: submit, scan, approve, execute. */
  label: string;
  count: number;
  rps: number;
  meanMs: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Answers that were not 2xx, by "status code" (e.g. "409 CONFLICT"), and a few bodies to read. */
  errors: Record<string, number>;
  errorSamples: string[];
}

export interface LoadResult {
  elapsedMs: number;
  /** Calls made during the untimed warm-up. */
  warmupCalls: number;
  /** CPU milliseconds the generator itself used while measuring. */
  cpuMs: number;
  steps: StepStats[];
  /** A client ran out of prepared work before the time was up (execute). */
  exhausted: boolean;
}

export type ToGenerator = { type: 'run'; plan: LoadPlan } | { type: 'measure' } | { type: 'exit' };
export type FromGenerator =
  | { type: 'ready' }
  /** The warm-up is over; the measured part starts now (the server side starts its meters). */
  | { type: 'measuring' }
  | { type: 'result'; result: LoadResult }
  | { type: 'failed'; message: string };
