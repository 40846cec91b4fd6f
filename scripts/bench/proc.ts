import { existsSync, readdirSync, readFileSync } from 'node:fs';

/**
 * CPU accounting from Linux /proc, in clock ticks (USER_HZ, 100 on Linux: the unit of both /proc/stat and
 * /proc/<pid>/stat). Everything answers "unknown" (null / empty) where /proc is not there.
 */
export const TICKS_PER_SECOND = 100;
export const procReadable = existsSync('/proc/self/stat') && existsSync('/proc/stat');

export interface ProcStat {
  pid: number;
  ppid: number;
  /** utime + stime: this process's own CPU. */
  ownTicks: number;
  /** cutime + cstime: CPU of its children that ended and were waited for. */
  childTicks: number;
  /** Start time in ticks since boot. */
  startTicks: number;
}

export function statOf(pid: number): ProcStat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After the parenthesized command name: state (field 3), ppid (4) … utime (14) … cstime (17) … starttime (22).
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    const at = (field: number) => Number(fields[field - 3]);
    return { pid, ppid: at(4), ownTicks: at(14) + at(15), childTicks: at(16) + at(17), startTicks: at(22) };
  } catch {
    return undefined; // ended meanwhile
  }
}

/** utime + stime of one process in ms; undefined when it is gone. */
export function cpuMsOf(pid: number): number | undefined {
  const stat = statOf(pid);
  return stat && (stat.ownTicks * 1000) / TICKS_PER_SECOND;
}

/** Every live process of the machine (one pass over /proc). */
export function allProcesses(): ProcStat[] {
  if (!procReadable) return [];
  const stats: ProcStat[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = statOf(Number(name));
    if (stat) stats.push(stat);
  }
  return stats;
}

/** A process and all its live descendants (the product and its cluster workers; the bench and its children). */
export function treeOf(rootPid: number, processes: ProcStat[] = allProcesses()): ProcStat[] {
  const children = new Map<number, ProcStat[]>();
  for (const stat of processes) children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), stat]);
  const root = processes.find((stat) => stat.pid === rootPid);
  if (!root) return [];
  const tree: ProcStat[] = [];
  const queue = [root];
  while (queue.length) {
    const next = queue.shift()!;
    tree.push(next);
    queue.push(...(children.get(next.pid) ?? []));
  }
  return tree;
}

/**
 * CPU ms used so far by a process tree, including descendants that already ended (their time moved into
 * their parent's cutime/cstime), so the sum never drops when a worker or a psql ends.
 */
export function treeCpuMs(rootPid: number, processes?: ProcStat[]): number {
  const ticks = treeOf(rootPid, processes).reduce((sum, stat) => sum + stat.ownTicks + stat.childTicks, 0);
  return (ticks * 1000) / TICKS_PER_SECOND;
}

/**
 * Busy ticks of the whole machine since boot that a process can be charged with: user, nice, system and a
 * hypervisor's steal. Interrupt time (irq, softirq) is left out on both sides: the kernel charges it to no
 * process, and here it is mostly the loopback traffic of the bench itself (pgbench's six round trips per
 * reserve.sql transaction put ≈ 28 % of a core in softirq), which would read as another process's CPU.
 */
export function machineBusyTicks(): number | null {
  if (!procReadable) return null;
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
  // cpu user nice system idle iowait irq softirq steal (guest is already inside user)
  const [user, nice, system, , , , , steal] = line.trim().split(/\s+/).slice(1).map(Number);
  return user! + nice! + system! + (steal ?? 0);
}

/** Seconds since boot in ticks, to compare with a process's start time. */
export function uptimeTicks(): number {
  return Math.round(Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]) * TICKS_PER_SECOND);
}
