import type { Database } from '@wms/platform';
import type { InventoryConfig } from '../../config.js';
import { onOutboxMessages } from '../notifications/outbox-signal.js';
import { outcomeOf, retryDelayMs, type DeliveryOutcome } from './delivery-policy.js';
import { claimNextDue, recordOutcome, releaseClaim, type ClaimedMessage } from './outbox-store.js';
import { postNotification, trackingTargetOf } from './tracking-client.js';

export interface DispatcherSettings {
  /** Polling period: picks up retries that came due and messages nobody announced. */
  intervalMs: number;
  /** Wait after the first failed attempt (doubling up to retryMaxMs). */
  retryBaseMs: number;
  retryMaxMs: number;
  /** Longest a delivery may take before it counts as a network error. */
  timeoutMs: number;
}

export const DEFAULT_DISPATCHER_SETTINGS: DispatcherSettings = {
  intervalMs: 1000,
  retryBaseMs: 2000,
  retryMaxMs: 10 * 60 * 1000,
  timeoutMs: 10_000,
};

interface DispatcherLog {
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

/**
 * Delivers the notification outbox to the tracking service (contract §5, §8), one message at a time in
 * id order: after a commit that announced messages, on every tick, and on the first tick after a start
 * (messages left by an earlier run). A message stays pending until a 2xx is seen, so neither a restart
 * of this service nor one of the tracking service loses it. A network error or 5xx ends the pass (the
 * target looks down) and the message waits its backoff; other messages keep their own schedule.
 * While TRACKING_URL or TRACKING_WEBHOOK_KEY is unset nothing is sent and nothing fails.
 */
export class OutboxDispatcher {
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private running: Promise<void> | undefined;
  private passRequested = false;
  private stopped = false;
  private readonly stopping = new AbortController();

  constructor(
    private readonly database: Database,
    /** Read on every pass, so the target is the one configured now. */
    private readonly config: Pick<InventoryConfig, 'trackingUrl' | 'trackingWebhookKey'>,
    private readonly settings: DispatcherSettings,
    private readonly log: DispatcherLog,
  ) {}

  start(): void {
    if (this.timer || this.stopped) return;
    this.unsubscribe = onOutboxMessages(() => this.wake());
    this.timer = setInterval(() => this.wake(), this.settings.intervalMs);
    this.timer.unref();
  }

  /** Runs a delivery pass now, or right after the running one. */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.passRequested = true;
      return;
    }
    this.running = this.pass()
      .catch((err: unknown) => this.log.error({ err }, '[outbox] 投递过程出错，下个周期重试'))
      .finally(() => {
        this.running = undefined;
        if (this.passRequested) {
          this.passRequested = false;
          this.wake();
        }
      });
  }

  /** Stops polling, cancels a delivery in flight (its message stays pending) and waits for the pass to end. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    this.unsubscribe?.();
    this.stopping.abort();
    await this.running;
  }

  private async pass(): Promise<void> {
    while (!this.stopped) {
      const target = trackingTargetOf(this.config);
      if (!target) return;
      const message = await claimNextDue(this.database, this.leaseMs());
      if (!message) return;
      const answer = await postNotification(target, message.kind, message.payload, this.attemptSignal());
      if (this.stopped && 'networkError' in answer) {
        await releaseClaim(this.database, message);
        return;
      }
      const outcome = outcomeOf(answer);
      await this.record(message, outcome);
      if (outcome.kind === 'retry') return;
    }
  }

  private async record(message: ClaimedMessage, outcome: DeliveryOutcome): Promise<void> {
    const retryInMs = retryDelayMs(message.attempts + 1, { baseMs: this.settings.retryBaseMs, maxMs: this.settings.retryMaxMs });
    const status = await recordOutcome(this.database, message, outcome, retryInMs);
    if (outcome.kind === 'delivered') return;
    const details = { id: message.id, event_id: message.event_id, kind: message.kind, attempts: message.attempts + 1, error: outcome.error };
    this.log.warn(details, status === 'failed' ? '[outbox] 通知投递失败，已标记为 failed（可由超级管理员重试）' : '[outbox] 通知投递失败，稍后重试');
  }

  private attemptSignal(): AbortSignal {
    return AbortSignal.any([this.stopping.signal, AbortSignal.timeout(this.settings.timeoutMs)]);
  }

  /** A claim outlives any delivery attempt, so no second dispatcher takes a message that is in flight. */
  private leaseMs(): number {
    return this.settings.timeoutMs * 3 + 5000;
  }
}
