import type { NoiseMeter, NoiseWindow } from './noise-meter.js';
import type { PhaseResult } from './phases.js';
import type { RawResult } from './pgbench.js';
import type { BenchSettings } from './settings.js';
import { speedProbeMs } from './speed-probe.js';

/**
 * One run of a comparison: the raw baseline (pgbench) right before the product phase, so both see the same
 * machine. Before it, the bench waits (up to BENCH_QUIET_WAIT_SECONDS) for a quiet machine; when other
 * processes used more than BENCH_NOISE_LIMIT of one core during either half, the pair is run again (up to
 * BENCH_MAX_REPEATS times); a pair still disturbed after that is kept but reported DISTURBED.
 */
export interface Attempt {
  quietBefore: NoiseWindow & { quiet: boolean; waitedSeconds: number };
  /** The machine's JavaScript speed right before the attempt (speed-probe.ts; lower is faster). */
  probeMs: number;
  raw?: RawResult & { noise: NoiseWindow };
  product: PhaseResult;
  disturbed: boolean;
}

export interface ComparisonRun {
  run: number;
  /** Every attempt in order; the last one is the one the report judges. */
  attempts: Attempt[];
}

export const finalAttempt = (run: ComparisonRun): Attempt => run.attempts[run.attempts.length - 1]!;

export interface ComparisonPlan {
  /** The raw transaction it is compared with; none for product-only phases (floor, execute). */
  baseline?: () => Promise<RawResult>;
  /** `tag` names the attempt (`r2a1`: run 2, attempt 1) in the files it writes. */
  product: (tag: string) => Promise<PhaseResult>;
  /** False for phases that use up prepared work (execute): measured once, marked when disturbed. */
  repeatable: boolean;
}

const pct = (core: number | null) => (core === null ? 'n/a' : `${(core * 100).toFixed(1)}%`);

export function noiseText(noise: NoiseWindow): string {
  return `others ${pct(noise.othersCore)} of a core, load ${noise.load1}`;
}

export async function runComparison(
  settings: BenchSettings,
  noise: NoiseMeter,
  run: number,
  plan: ComparisonPlan,
  log: (text: string) => void,
): Promise<ComparisonRun> {
  const attempts: Attempt[] = [];
  const busy = (window: NoiseWindow | undefined) => window?.othersCore != null && window.othersCore > settings.noiseLimitCore;
  const limit = plan.repeatable ? 1 + settings.maxRepeats : 1;
  for (let attempt = 1; attempt <= limit; attempt++) {
    const quietBefore = await noise.waitForQuiet(settings.noiseLimitCore, settings.quietWaitSeconds);
    const waited = quietBefore.waitedSeconds > 1.5 ? ` after ${quietBefore.waitedSeconds} s` : '';
    const probeMs = speedProbeMs();
    log(`  run ${run}, attempt ${attempt}: machine ${quietBefore.quiet ? 'quiet' : 'NOT quiet'}${waited} (${noiseText(quietBefore)}, speed probe ${probeMs} ms)`);
    let raw: Attempt['raw'];
    if (plan.baseline) {
      const from = noise.mark();
      const result = await plan.baseline();
      raw = { ...result, noise: noise.since(from) };
      const p99 = result.latencyP99Ms === null ? '' : `, p99 ${result.latencyP99Ms} ms`;
      log(`    raw ${result.script} ${result.tps.toFixed(1)} tps${p99} (${noiseText(raw.noise)})`);
    }
    const product = await plan.product(`r${run}a${attempt}`);
    for (const step of product.load.steps) log(`    product ${step.label}: ${step.rps} rps, p50 ${step.p50Ms} ms, p99 ${step.p99Ms} ms`);
    log(`    (${noiseText(product.noise)})`);
    const disturbed = busy(raw?.noise) || busy(product.noise);
    attempts.push({ quietBefore, probeMs, ...(raw ? { raw } : {}), product, disturbed });
    if (!disturbed) break;
    log(`    DISTURBED: other processes used more than ${pct(settings.noiseLimitCore)} of a core${attempt < limit ? '; running it again' : ''}`);
  }
  return { run, attempts };
}
