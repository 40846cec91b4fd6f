import type { PhaseName, PhaseResult } from './phases.js';
import type { RawResult } from './pgbench.js';

export type RawName = 'reserve' | 'reserveHot' | 'select';

/** Issue 3's targets: the product's throughput as a share of the raw transaction it stands on. */
export interface Target {
  phase: PhaseName;
  step: string;
  raw: RawName;
  minRatio: number;
  maxP99Ms?: number;
  noDeadlock?: boolean;
}

export const TARGETS: Target[] = [
  { phase: 'submit', step: 'submit', raw: 'reserve', minRatio: 0.4, maxP99Ms: 10 },
  { phase: 'hot', step: 'submit', raw: 'reserveHot', minRatio: 0.4, maxP99Ms: 100, noDeadlock: true },
  { phase: 'scan', step: 'scan', raw: 'select', minRatio: 0.15 },
];

export interface Verdict {
  phase: PhaseName;
  rps: number;
  rawTps: number;
  ratio: number;
  p99Ms: number;
  checks: Array<{ what: string; wanted: string; got: string; pass: boolean }>;
  pass: boolean;
}

export interface BenchReport {
  startedAt: string;
  seconds: number;
  load: { before: string; after: string; cpus: number };
  raw: Partial<Record<RawName, RawResult>>;
  phases: PhaseResult[];
  verdicts: Verdict[];
  deadlocks: { product: number; raw: number };
}

export function judge(raw: Partial<Record<RawName, RawResult>>, phases: PhaseResult[], productDeadlocks: number): Verdict[] {
  const verdicts: Verdict[] = [];
  for (const target of TARGETS) {
    const phase = phases.find((p) => p.name === target.phase);
    const step = phase?.load.steps.find((s) => s.label === target.step);
    const baseline = raw[target.raw];
    if (!phase || !step || !baseline) continue;
    const ratio = Math.round((step.rps / baseline.tps) * 1000) / 1000;
    const checks = [{ what: 'ratio', wanted: `>= ${target.minRatio}`, got: ratio.toFixed(3), pass: ratio >= target.minRatio }];
    if (target.maxP99Ms !== undefined) {
      checks.push({ what: 'p99', wanted: `<= ${target.maxP99Ms} ms`, got: `${step.p99Ms} ms`, pass: step.p99Ms <= target.maxP99Ms });
    }
    if (target.noDeadlock) {
      // The log names the phase's deadlocks; without a readable log, the run's total has to do.
      const seen = phase.deadlocks ?? productDeadlocks;
      checks.push({ what: 'deadlocks', wanted: '0', got: String(seen), pass: seen === 0 });
    }
    verdicts.push({ phase: target.phase, rps: step.rps, rawTps: baseline.tps, ratio, p99Ms: step.p99Ms, checks, pass: checks.every((c) => c.pass) });
  }
  return verdicts;
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i]!)).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

const errorsText = (errors: Record<string, number>) => {
  const entries = Object.entries(errors);
  return entries.length ? entries.map(([key, n]) => `${n}×${key}`).join(', ') : '0';
};

export function renderReport(report: BenchReport): string {
  const out: string[] = [];
  out.push(`Outbound benchmark — ${report.seconds} s per phase, ${report.load.cpus} CPUs`);
  out.push(`load average before: ${report.load.before}   after: ${report.load.after}`);
  out.push('');
  out.push('Raw PostgreSQL baselines (pgbench, ../shared/bench):');
  out.push(
    table(
      ['baseline', 'arguments', 'tps', 'lat avg ms', 'failed', 'PG CPU ms/tx'],
      Object.entries(report.raw).map(([name, r]) => [
        name,
        `${r.script} ${r.args.join(' ')}`,
        r.tps.toFixed(1),
        String(r.latencyAvgMs ?? ''),
        String(r.failed ?? 0),
        r.backendCpuMsPerTx === null ? 'n/a' : r.backendCpuMsPerTx.toFixed(3),
      ]),
    ),
  );
  out.push('');
  out.push('Product over HTTP (separate load-generator process, keep-alive, one user per client):');
  out.push(
    table(
      ['phase', 'call', 'clients', 'rows', 'rps', 'p50 ms', 'p99 ms', 'max ms', 'non-2xx', 'SQL/call', 'SQL ms/call', 'pool wait ms'],
      report.phases.flatMap((phase) =>
        phase.load.steps.map((step) => [
          phase.name,
          step.label,
          String(phase.clients),
          String(phase.rows),
          step.rps.toFixed(1),
          step.p50Ms.toFixed(2),
          step.p99Ms.toFixed(2),
          step.maxMs.toFixed(1),
          errorsText(step.errors),
          String(phase.perRequest.queries),
          phase.perRequest.queryMs.toFixed(2),
          phase.perRequest.poolWaitMs.toFixed(2),
        ]),
      ),
    ),
  );
  out.push('');
  out.push('Where each measured call goes (CPU ms vary less with the machine load than rps do) and what the backends did:');
  out.push(
    table(
      ['phase', 'server CPU ms', 'PG CPU ms', 'client CPU ms', 'backends', 'running SQL', 'lock wait', 'waiting for node', 'idle', 'deadlocks (log)'],
      report.phases.map((phase) => [
        phase.name,
        phase.perRequest.serverCpuMs.toFixed(3),
        phase.perRequest.backendCpuMs === null ? 'n/a' : phase.perRequest.backendCpuMs.toFixed(3),
        phase.perRequest.clientCpuMs.toFixed(3),
        String(phase.activity.backendsMean),
        pct(phase.activity.running),
        pct(phase.activity.lock),
        pct(phase.activity.waitingOnClient),
        pct(phase.activity.idle),
        phase.deadlocks === null ? 'log unreadable' : String(phase.deadlocks),
      ]),
    ),
  );
  out.push('');
  out.push('Targets (issue 3):');
  out.push(
    table(
      ['phase', 'product rps', 'raw tps', 'ratio', 'p99 ms', 'checks', 'result'],
      report.verdicts.map((v) => [
        v.phase,
        v.rps.toFixed(1),
        v.rawTps.toFixed(1),
        v.ratio.toFixed(3),
        v.p99Ms.toFixed(2),
        v.checks.map((c) => `${c.what} ${c.got} (${c.wanted}) ${c.pass ? 'ok' : 'MISS'}`).join('; '),
        v.pass ? 'PASS' : 'MISS',
      ]),
    ),
  );
  out.push(`Deadlocks over the whole run (pg_stat_database): product ${report.deadlocks.product}, raw ${report.deadlocks.raw}`);
  const profiled = report.phases.filter((phase) => phase.profile);
  for (const phase of profiled) {
    out.push('');
    out.push(`CPU profile of the server during "${phase.name}" (${phase.profile!.file}), self time by area:`);
    out.push(phase.profile!.byArea.map((a) => `  ${pct(a.share).padStart(6)}  ${a.area}`).join('\n'));
    out.push('  top functions:');
    out.push(phase.profile!.topFunctions.slice(0, 12).map((f) => `  ${pct(f.share).padStart(6)}  ${f.fn}`).join('\n'));
  }
  return out.join('\n');
}

function pct(share: number): string {
  return `${(share * 100).toFixed(1)}%`;
}
