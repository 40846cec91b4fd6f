/**
 * The load generator: a separate process (forked by the bench) so that building requests and reading
 * answers never takes event-loop time from the server under test. Every client keeps one keep-alive
 * connection and sends its next call as soon as the previous answer arrived (closed loop).
 *
 * Each client is one HttpConnection (http-connection.ts): the client shares the two cores with the
 * server and PostgreSQL, so it spends as little CPU per call as it can.
 */
import { HttpConnection, type Answer } from './http-connection.js';
import type { ExecutionJob, FromGenerator, LoadPlan, LoadResult, StepStats, ToGenerator, Workload } from './load-protocol.js';
import { percentile, round } from './stats.js';

interface Call {
  label: string;
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
}

interface Recorder {
  latencies: Map<string, number[]>;
  errors: Map<string, Map<string, number>>;
  samples: Map<string, string[]>;
}

const API = '/api/v1/outbound';

function randomInt(below: number): number {
  return Math.floor(Math.random() * below);
}

function distinctRandom<T>(values: readonly T[], n: number): T[] {
  const picked = new Set<number>();
  while (picked.size < Math.min(n, values.length)) picked.add(randomInt(values.length));
  return [...picked].map((index) => values[index]!);
}

/** The calls of one client, in order; the sequence ends when the client has nothing left to do. */
function* callsOf(workload: Workload, client: number, clients: number): Generator<Call, void> {
  switch (workload.kind) {
    case 'submit':
      for (let n = 1; ; n++) {
        const items = distinctRandom(workload.materialIds, workload.linesPerRequest).map((id) => ({ base_id: id, quantity: 1 }));
        yield { label: 'submit', method: 'POST', path: `${API}/request`, body: { outbound_type: 'USE', items, remark: `bench c${client} #${n}` } };
      }
    case 'scan':
      for (;;) {
        const barcode = workload.barcodes[randomInt(workload.barcodes.length)]!;
        yield { label: 'scan', method: 'GET', path: `${API}/scan?barcode=${encodeURIComponent(barcode)}&request_id=${workload.requestId}` };
      }
    case 'get':
      for (;;) yield { label: workload.label, method: 'GET', path: workload.path };
    case 'execute':
      for (let index = client; index < workload.jobs.length; index += clients) {
        const job: ExecutionJob = workload.jobs[index]!;
        yield { label: 'approve', method: 'POST', path: `${API}/request/${job.requestId}/approve` };
        yield { label: 'execute', method: 'POST', path: API, body: { request_id: job.requestId, consumer_name: 'bench', lines: job.lines } };
      }
  }
}

function send(connection: HttpConnection, call: Call): Promise<Answer> {
  return connection.send(call.method, call.path, call.body === undefined ? undefined : JSON.stringify(call.body));
}

function record(recorder: Recorder, label: string, ms: number, answer: Answer): void {
  let latencies = recorder.latencies.get(label);
  if (!latencies) recorder.latencies.set(label, (latencies = []));
  latencies.push(ms);
  if (answer.status >= 200 && answer.status < 300) return;
  let code = '';
  try {
    code = String((JSON.parse(answer.body) as { code?: unknown }).code ?? '');
  } catch {
    code = 'non-JSON';
  }
  const key = `${answer.status} ${code}`.trim();
  let errors = recorder.errors.get(label);
  if (!errors) recorder.errors.set(label, (errors = new Map()));
  errors.set(key, (errors.get(key) ?? 0) + 1);
  let samples = recorder.samples.get(label);
  if (!samples) recorder.samples.set(label, (samples = []));
  if (samples.length < 5) samples.push(`${answer.status} ${answer.body.slice(0, 300)}`);
}

/** Runs every client until the deadline; answers whether a client ran out of work first. */
async function drive(
  connections: HttpConnection[],
  callsPerClient: Generator<Call, void>[],
  durationMs: number,
  recorder: Recorder,
): Promise<{ elapsedMs: number; exhausted: boolean }> {
  const started = performance.now();
  const deadline = started + durationMs;
  let lastAnswer = started;
  let exhausted = false;
  const clients = connections.map(async (connection, client) => {
    const calls = callsPerClient[client]!;
    while (performance.now() < deadline) {
      const next = calls.next();
      if (next.done) {
        exhausted = true;
        return;
      }
      const sent = performance.now();
      const answer = await send(connection, next.value);
      lastAnswer = performance.now();
      record(recorder, next.value.label, lastAnswer - sent, answer);
    }
  });
  await Promise.all(clients);
  return { elapsedMs: lastAnswer - started, exhausted };
}

function statsOf(recorder: Recorder, elapsedMs: number): StepStats[] {
  return [...recorder.latencies].map(([label, latencies]) => {
    const sorted = Float64Array.from(latencies).sort();
    const values = Array.from(sorted);
    return {
      label,
      count: values.length,
      rps: round((values.length / elapsedMs) * 1000, 1),
      meanMs: round(values.reduce((sum, ms) => sum + ms, 0) / Math.max(1, values.length), 2),
      p50Ms: round(percentile(values, 50), 2),
      p99Ms: round(percentile(values, 99), 2),
      maxMs: round(values[values.length - 1] ?? 0, 2),
      errors: Object.fromEntries(recorder.errors.get(label) ?? []),
      errorSamples: recorder.samples.get(label) ?? [],
    };
  });
}

const newRecorder = (): Recorder => ({ latencies: new Map(), errors: new Map(), samples: new Map() });

async function runPlan(plan: LoadPlan): Promise<LoadResult> {
  const base = new URL(plan.baseUrl);
  const connections = plan.tokens.map((token) => new HttpConnection(base.hostname, Number(base.port || 80), `Bearer ${token}`));
  // One sequence per client across warm-up and measurement: prepared work is never done twice.
  const calls = plan.tokens.map((_, client) => callsOf(plan.workload, client, plan.tokens.length));
  try {
    const warmup = newRecorder();
    if (plan.warmupMs > 0) await drive(connections, calls, plan.warmupMs, warmup);
    const warmupCalls = [...warmup.latencies.values()].reduce((sum, latencies) => sum + latencies.length, 0);
    await measuring();
    const cpuBefore = process.cpuUsage();
    const recorder = newRecorder();
    const { elapsedMs, exhausted } = await drive(connections, calls, plan.durationMs, recorder);
    const cpu = process.cpuUsage(cpuBefore);
    return { elapsedMs, warmupCalls, cpuMs: (cpu.user + cpu.system) / 1000, steps: statsOf(recorder, elapsedMs), exhausted };
  } finally {
    for (const connection of connections) connection.close();
  }
}

function reply(message: FromGenerator): void {
  process.send?.(message);
}

let resumeMeasuring: (() => void) | undefined;

/** Tells the bench the warm-up is over and waits until its meters run. */
function measuring(): Promise<void> {
  return new Promise((resolve) => {
    resumeMeasuring = resolve;
    reply({ type: 'measuring' });
  });
}

process.on('message', (message: ToGenerator) => {
  if (message.type === 'exit') process.exit(0);
  if (message.type === 'measure') {
    resumeMeasuring?.();
    return;
  }
  runPlan(message.plan).then(
    (result) => reply({ type: 'result', result }),
    (err: unknown) => reply({ type: 'failed', message: err instanceof Error ? (err.stack ?? err.message) : String(err) }),
  );
});
reply({ type: 'ready' });
