import { finalAttempt, type ComparisonRun } from './comparison.js';
import type { ProfileSummary } from './cpu-profile.js';
import type { NoiseWindow } from './noise-meter.js';
import type { PhaseName, PhaseResult } from './phases.js';
import { LONG_GC_PAUSE_MS } from './server-meter-preload.js';
import { spreadOf, type Spread } from './stats.js';

export type RawName = 'reserve' | 'reserveHot' | 'select' | 'reserveSerial';

/** Issue 14's targets: the product's throughput as a share of the raw transaction it stands on, and its p99. */
export interface Target {
  phase: PhaseName;
  step: string;
  minRatio: number;
  maxP99Ms?: number;
  noDeadlock?: boolean;
}

export const TARGETS: Target[] = [
  { phase: 'submit', step: 'submit', minRatio: 0.4, maxP99Ms: 10 },
  { phase: 'hot', step: 'submit', minRatio: 0.4, maxP99Ms: 100, noDeadlock: true },
  { phase: 'scan', step: 'scan', minRatio: 0.1, maxP99Ms: 15 },
  { phase: 'pglite', step: 'submit', minRatio: 0.4 },
];

export interface Verdict {
  phase: PhaseName;
  runs: number;
  /** Runs whose judged attempt was still disturbed. */
  disturbedRuns: number;
  rps: Spread;
  rawTps: Spread;
  ratio: Spread;
  p99Ms: Spread;
  /** The raw transaction's own p99 at pgbench's clients (pgbench.ts), beside the product's: null without its log. */
  rawP99Ms: Spread | null;
  checks: Array<{ what: string; wanted: string; got: string; pass: boolean }>;
  /** Judged on the medians; never PASS when a run stayed disturbed. */
  result: 'PASS' | 'MISS' | 'DISTURBED';
}

export interface ComparisonResult {
  name: PhaseName;
  raw?: RawName;
  runs: ComparisonRun[];
}

/** A phase with its own result shape (lists, stocktake, audit): its pass flag when it has one. */
export interface ExtraPhase {
  name: string;
  noise: NoiseWindow;
  result: unknown;
}

export interface BenchReport {
  startedAt: string;
  seconds: number;
  runs: number;
  noiseLimitCore: number;
  workers: string | null;
  load: { before: string; after: string; cpus: number };
  /** speed-probe.ts at the start and the end of the bench, ms (lower is faster). */
  speedProbe: { before: number; after: number };
  comparisons: ComparisonResult[];
  extras: ExtraPhase[];
  verdicts: Verdict[];
  deadlocks: { product: number; raw: number };
}

const stepOf = (phase: PhaseResult, label: string) => phase.load.steps.find((step) => step.label === label);

export function judge(comparisons: ComparisonResult[], productDeadlocks: number): Verdict[] {
  const verdicts: Verdict[] = [];
  for (const target of TARGETS) {
    const comparison = comparisons.find((c) => c.name === target.phase);
    const judged = (comparison?.runs ?? []).map(finalAttempt).filter((a) => a.raw && stepOf(a.product, target.step));
    if (!judged.length) continue;
    const rps = judged.map((a) => stepOf(a.product, target.step)!.rps);
    const rawTps = judged.map((a) => a.raw!.tps);
    const ratio = spreadOf(rps.map((value, i) => value / rawTps[i]!));
    const p99Ms = spreadOf(judged.map((a) => stepOf(a.product, target.step)!.p99Ms));
    const rawP99s = judged.map((a) => a.raw!.latencyP99Ms).filter((ms): ms is number => ms !== null);
    const rawP99Ms = rawP99s.length === judged.length ? spreadOf(rawP99s) : null;
    const checks = [{ what: 'ratio', wanted: `>= ${target.minRatio}`, got: ratio.median.toFixed(3), pass: ratio.median >= target.minRatio }];
    if (target.maxP99Ms !== undefined) {
      checks.push({ what: 'p99', wanted: `<= ${target.maxP99Ms} ms`, got: `${p99Ms.median.toFixed(2)} ms`, pass: p99Ms.median <= target.maxP99Ms });
    }
    if (target.noDeadlock) {
      // Every attempt counts: a deadlock in a discarded attempt is still a deadlock. Without a readable
      // log, the run's total (pg_stat_database) has to do.
      const logged = comparison!.runs.flatMap((run) => run.attempts.map((a) => a.product.deadlocks));
      const seen = logged.every((n) => n !== null) ? logged.reduce<number>((sum, n) => sum + n!, 0) : productDeadlocks;
      checks.push({ what: 'deadlocks', wanted: '0', got: String(seen), pass: seen === 0 });
    }
    const disturbedRuns = judged.filter((a) => a.disturbed).length;
    verdicts.push({
      phase: target.phase,
      runs: judged.length,
      disturbedRuns,
      rps: spreadOf(rps),
      rawTps: spreadOf(rawTps),
      ratio,
      p99Ms,
      rawP99Ms,
      checks,
      result: disturbedRuns ? 'DISTURBED' : checks.every((c) => c.pass) ? 'PASS' : 'MISS',
    });
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

const pct = (share: number | null | undefined) => (share == null ? 'n/a' : `${(share * 100).toFixed(1)}%`);
const fixed = (n: number | null, digits: number) => (n === null ? 'n/a' : n.toFixed(digits));
const spreadText = (s: Spread, digits: number) => `${s.median.toFixed(digits)} (${s.min.toFixed(digits)}–${s.max.toFixed(digits)})`;

function runRows(report: BenchReport): string[][] {
  return report.comparisons.flatMap((comparison) =>
    comparison.runs.flatMap((run) =>
      run.attempts.flatMap((attempt, index) =>
        attempt.product.load.steps.map((step) => [
          comparison.name,
          step.label,
          `${run.run}.${index + 1}${index === run.attempts.length - 1 ? '' : ' (dropped)'}`,
          attempt.raw ? attempt.raw.tps.toFixed(1) : '—',
          step.rps.toFixed(1),
          attempt.raw ? (step.rps / attempt.raw.tps).toFixed(3) : '—',
          step.p50Ms.toFixed(2),
          step.p99Ms.toFixed(2),
          attempt.raw ? fixed(attempt.raw.latencyP99Ms, 2) : '—',
          errorsText(step.errors),
          fixed(attempt.product.perRequest.queries, 1),
          attempt.product.perRequest.serverCpuMs.toFixed(3),
          fixed(attempt.product.perRequest.backendCpuMs, 3),
          attempt.product.perRequest.clientCpuMs.toFixed(3),
          attempt.raw ? pct(attempt.raw.noise.othersCore) : '—',
          pct(attempt.product.noise.othersCore),
          String(attempt.product.noise.load1),
          attempt.probeMs.toFixed(1),
          attempt.disturbed ? 'DISTURBED' : 'ok',
        ]),
      ),
    ),
  );
}

function activityRows(report: BenchReport): string[][] {
  return report.comparisons.flatMap((comparison) =>
    comparison.runs.map(finalAttempt).flatMap((attempt, index) => {
      const { activity, perRequest, deadlocks, gc } = attempt.product;
      if (!activity) return [];
      return [[
        comparison.name,
        String(index + 1),
        fixed(perRequest.queryMs, 2),
        fixed(perRequest.poolWaitMs, 2),
        String(activity.backendsMean),
        pct(activity.running),
        pct(activity.lock),
        pct(activity.waitingOnClient),
        pct(activity.idle),
        deadlocks === null ? 'log unreadable' : String(deadlocks),
        String(gc.pauses),
        gc.meanPauseMs.toFixed(2),
        String(gc.longPauses),
      ]];
    }),
  );
}

function renderProfiles(report: BenchReport, out: string[]): void {
  for (const comparison of report.comparisons) {
    const attempt = comparison.runs.map(finalAttempt).find((a) => a.product.profiles?.length);
    // With workers, the main process only forwards connections: show the processes that did the work.
    const busy = attempt?.product.profiles?.filter((p) => p.worker || attempt.product.profiles!.length === 1) ?? [];
    for (const profile of busy.length ? busy : (attempt?.product.profiles ?? [])) {
      out.push('');
      const who = `the service (${profile.worker ? 'worker' : 'process'} ${profile.pid}) during "${comparison.name}" (${profile.file})`;
      const calls = attempt!.product.load.steps.reduce((sum, step) => sum + step.count, 0);
      out.push(...profileLines(profile, who, busy.length <= 1 ? calls : 0));
    }
  }
}

/** One profile as the report prints it: the heading, self time (or bytes) by area, the top functions. */
export function profileLines(profile: ProfileSummary, who: string, calls = 0): string[] {
  const heading =
    profile.kind === 'heap'
      ? `Allocation profile of ${who}: ${((profile.allocatedBytes ?? 0) / 2 ** 20).toFixed(0)} MB allocated` +
        `${calls > 0 ? `, ${((profile.allocatedBytes ?? 0) / calls / 1024).toFixed(1)} KB per call` : ''}, by area:`
      : `CPU profile of ${who}, self time by area:`;
  return [
    heading,
    ...profile.byArea.map((a) => `  ${pct(a.share).padStart(6)}  ${a.area}`),
    '  top functions:',
    ...profile.topFunctions.slice(0, 12).map((f) => `  ${pct(f.share).padStart(6)}  ${f.fn}`),
  ];
}

/** Rows of a phase that reports list variants (lists): name, p50, p99, pass. */
interface VariantLike {
  name: string;
  p50Ms: number;
  p99Ms: number;
  pass: boolean;
}

function renderExtras(report: BenchReport, out: string[]): void {
  for (const extra of report.extras) {
    const result = extra.result as { pass?: unknown; variants?: VariantLike[] } | null;
    const disturbed = extra.noise.othersCore !== null && extra.noise.othersCore > report.noiseLimitCore;
    const verdict = disturbed ? 'DISTURBED' : result?.pass === true ? 'PASS' : result?.pass === false ? 'MISS' : '—';
    out.push('');
    out.push(`${extra.name}: ${verdict} (others ${pct(extra.noise.othersCore)} of a core, load ${extra.noise.load1}; details in the log and the JSON)`);
    if (Array.isArray(result?.variants)) {
      out.push(
        table(
          ['variant', 'p50 ms', 'p99 ms', 'result'],
          result.variants.map((v) => [v.name, v.p50Ms.toFixed(1), v.p99Ms.toFixed(1), disturbed ? 'DISTURBED' : v.pass ? 'ok' : 'MISS']),
        ),
      );
    }
  }
}

export function renderReport(report: BenchReport): string {
  const out: string[] = [];
  out.push(`Benchmark — ${report.seconds} s per phase, ${report.runs} run(s) per comparison, ${report.load.cpus} CPUs, INVENTORY_WORKERS=${report.workers ?? '(unset)'}`);
  out.push(`load average before: ${report.load.before}   after: ${report.load.after}   noise limit: others ≤ ${pct(report.noiseLimitCore)} of a core`);
  out.push(`JavaScript speed probe before: ${report.speedProbe.before} ms   after: ${report.speedProbe.after} ms (lower is faster; compare across reports to tell a slower machine from a slower product)`);
  if (report.comparisons.length) {
    out.push('');
    out.push('Every run (raw = pgbench of ../shared/bench right before, its p99 at its own clients; others = CPU of processes outside the bench, share of one core):');
    out.push(
      table(
        ['phase', 'call', 'run', 'raw tps', 'rps', 'ratio', 'p50 ms', 'p99 ms', 'raw p99 ms', 'non-2xx', 'SQL/call', 'server CPU ms', 'PG CPU ms', 'client CPU ms', 'others raw', 'others product', 'load', 'probe ms', 'noise'],
        runRows(report),
      ),
    );
  }
  const activity = activityRows(report);
  if (activity.length) {
    out.push('');
    out.push(`What the PostgreSQL backends did, and the service's GC pauses (judged attempt of each run; long = ${LONG_GC_PAUSE_MS} ms or more):`);
    out.push(
      table(
        ['phase', 'run', 'SQL ms/call', 'pool wait ms', 'backends', 'running SQL', 'lock wait', 'waiting for node', 'idle', 'deadlocks (log)', 'GC pauses', 'GC mean ms', 'long GC'],
        activity,
      ),
    );
  }
  if (report.verdicts.length) {
    out.push('');
    out.push('Targets (issue 14), median of the runs (min–max):');
    out.push(
      table(
        ['phase', 'runs', 'product rps', 'raw tps', 'ratio', 'p99 ms', 'raw p99 ms', 'checks (on medians)', 'result'],
        report.verdicts.map((v) => [
          v.phase,
          `${v.runs}${v.disturbedRuns ? ` (${v.disturbedRuns} disturbed)` : ''}`,
          spreadText(v.rps, 1),
          spreadText(v.rawTps, 1),
          spreadText(v.ratio, 3),
          spreadText(v.p99Ms, 2),
          v.rawP99Ms ? spreadText(v.rawP99Ms, 2) : 'n/a',
          v.checks.map((c) => `${c.what} ${c.got} (${c.wanted}) ${c.pass ? 'ok' : 'MISS'}`).join('; '),
          v.result === 'DISTURBED' ? `DISTURBED (medians ${v.checks.every((c) => c.pass) ? 'within' : 'outside'} the targets)` : v.result,
        ]),
      ),
    );
  }
  renderExtras(report, out);
  out.push('');
  out.push(`Deadlocks over the whole run (pg_stat_database): product ${report.deadlocks.product}, raw ${report.deadlocks.raw}`);
  renderProfiles(report, out);
  return out.join('\n');
}

