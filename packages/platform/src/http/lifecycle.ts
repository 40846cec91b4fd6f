/**
 * Closes the running services once on SIGINT/SIGTERM, so PGlite flushes and releases its data folder
 * (a second Ctrl-C while closing exits at once).
 */
export function closeOnSignals(close: () => Promise<void>, log: (line: string) => void = console.log): void {
  let closing = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (closing) process.exit(130);
    closing = true;
    log(`收到 ${signal}，正在安全关闭…`);
    close()
      .then(() => process.exit(0))
      .catch((err: unknown) => {
        console.error(err);
        process.exit(1);
      });
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

/** Prints a configuration or data-folder problem as one line and exits non-zero. */
export function exitOnStartFailure(err: unknown): never {
  const message = err instanceof Error ? err.message : String(err);
  const known = err instanceof Error && ['ConfigError', 'DataDirLockedError'].includes(err.name);
  console.error(known ? message : `启动失败: ${message}`);
  if (!known && err instanceof Error && err.stack) console.error(err.stack);
  process.exit(1);
}
