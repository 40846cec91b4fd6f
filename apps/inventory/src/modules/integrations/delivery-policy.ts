import type { TrackingAnswer } from './tracking-client.js';

/** Contract §8: network errors and 5xx are retried up to this many attempts in all. */
export const MAX_DELIVERY_ATTEMPTS = 10;

/** What one delivery attempt means for its message. */
export type DeliveryOutcome =
  | { kind: 'delivered' }
  /** Worth another try later: network error, timeout, 5xx (and anything else that is neither 2xx nor 4xx). */
  | { kind: 'retry'; error: string }
  /** 4xx other than a 2xx: the receiver refused this message; retrying cannot help. */
  | { kind: 'failed'; error: string };

/**
 * Contract §5, §8: any 2xx ends it, every 4xx fails it at once (429 included: the contract retries only
 * network errors and 5xx; a SUPER_ADMIN sends a failed message again through the outbox), everything else
 * is retried.
 */
export function outcomeOf(answer: TrackingAnswer): DeliveryOutcome {
  if ('networkError' in answer) return { kind: 'retry', error: `网络错误: ${answer.networkError}` };
  if (answer.status >= 200 && answer.status < 300) return { kind: 'delivered' };
  const error = `HTTP ${answer.status}${answer.body ? `: ${answer.body.slice(0, 500)}` : ''}`;
  if (answer.status >= 400 && answer.status < 500) return { kind: 'failed', error };
  return { kind: 'retry', error };
}

export interface BackoffSettings {
  /** Wait after the first failed attempt; doubles with every further one. */
  baseMs: number;
  maxMs: number;
}

/** Exponential backoff: after attempt n (1-based) wait base × 2^(n−1), at most max. */
export function retryDelayMs(attempts: number, backoff: BackoffSettings): number {
  return Math.min(backoff.baseMs * 2 ** Math.max(0, attempts - 1), backoff.maxMs);
}
