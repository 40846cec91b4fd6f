import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * PGlite takes no lock on its data folder, and two processes writing one folder corrupt it.
 * We hold a pid file beside the folder: a live owner makes the second opener fail at once;
 * a dead owner's file (crash, kill -9) is taken over.
 */
export class DataDirLockedError extends Error {
  constructor(dir: string, pid: number) {
    super(`数据目录 ${dir} 正被进程 ${pid} 使用，不能同时打开（another process already uses this PGlite data folder）`);
    this.name = 'DataDirLockedError';
  }
}

const heldLocks = new Set<string>();

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function acquireDataDirLock(dir: string): () => void {
  const lockPath = `${dir}.lock`;
  if (heldLocks.has(lockPath)) throw new DataDirLockedError(dir, process.pid);
  mkdirSync(dirname(lockPath), { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockPath, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      heldLocks.add(lockPath);
      return () => {
        heldLocks.delete(lockPath);
        rmSync(lockPath, { force: true });
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number(readFileSync(lockPath, 'utf8').trim());
      if (Number.isInteger(owner) && owner > 0 && isAlive(owner)) throw new DataDirLockedError(dir, owner);
      rmSync(lockPath, { force: true });
    }
  }
  throw new Error(`无法获取数据目录锁 ${lockPath}`);
}
