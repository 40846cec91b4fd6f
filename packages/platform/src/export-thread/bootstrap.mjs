// The export thread's entry, plain JavaScript so it runs before TypeScript can be loaded: it lowers
// this thread's CPU priority first (everything after it, module loading included, runs at the lower
// one), registers tsx when the host did not run under tsx's loader (vitest), then loads thread.ts.
import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';

/**
 * Linux: /proc/thread-self is `<pid>/task/<tid>`, and setpriority() on a tid renices just that
 * thread. Elsewhere (no /proc, or a refusal) the thread keeps the normal priority.
 */
function lowerThreadPriority(niceness) {
  let tid;
  try {
    tid = Number(readlinkSync('/proc/thread-self').split('/').at(-1));
  } catch {
    return { tid: null, niceness: null };
  }
  if (!Number.isSafeInteger(tid) || tid <= 0) return { tid: null, niceness: null };
  try {
    setPriority(tid, niceness);
    return { tid, niceness: getPriority(tid) };
  } catch {
    return { tid, niceness: null };
  }
}

const started = lowerThreadPriority(workerData.niceness);
parentPort.postMessage({ type: 'started', ...started });

if (workerData.registerTsx) {
  const { register } = await import('tsx/esm/api');
  register();
}
await import(workerData.main);
