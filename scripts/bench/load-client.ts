import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { FromGenerator, LoadPlan, LoadResult, ToGenerator } from './load-protocol.js';

const GENERATOR = fileURLToPath(new URL('./load-generator.ts', import.meta.url));

export interface LoadGenerator {
  /** Runs a plan; `onMeasuring` runs between warm-up and measurement, before the first measured call. */
  run(plan: LoadPlan, onMeasuring?: () => Promise<void>): Promise<LoadResult>;
  close(): void;
}

/** Forks the load generator (its own process and event loop) and waits until it listens for plans. */
export async function startLoadGenerator(): Promise<LoadGenerator> {
  const child: ChildProcess = fork(GENERATOR, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const nextMessage = () =>
    new Promise<FromGenerator>((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`load generator exited (${code})`));
      child.once('exit', onExit);
      child.once('message', (message: FromGenerator) => {
        child.off('exit', onExit);
        resolve(message);
      });
    });
  const ready = await nextMessage();
  if (ready.type !== 'ready') throw new Error(`load generator: unexpected first message ${ready.type}`);
  const send = (message: ToGenerator) => child.send(message);
  return {
    async run(plan, onMeasuring) {
      let answer = nextMessage();
      send({ type: 'run', plan });
      let message = await answer;
      if (message.type === 'measuring') {
        await onMeasuring?.();
        answer = nextMessage();
        send({ type: 'measure' });
        message = await answer;
      }
      if (message.type === 'failed') throw new Error(`load generator failed: ${message.message}`);
      if (message.type !== 'result') throw new Error(`load generator: unexpected message ${message.type}`);
      return message.result;
    },
    close() {
      if (child.connected) send({ type: 'exit' });
    },
  };
}
