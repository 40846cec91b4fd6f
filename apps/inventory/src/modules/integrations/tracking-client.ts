import { API_PREFIX, AppError } from '@wms/platform';
import type { NotificationKind } from '../../db/schema/index.js';
import type { InventoryConfig } from '../../config.js';

/** What came back from one HTTP call to the tracking service. */
export type TrackingAnswer = { status: number; body: string } | { networkError: string };

/** Where the tracking service listens and the X-API-Key it expects; undefined while not configured. */
export interface TrackingTarget {
  baseUrl: string;
  key: string;
}

/**
 * TRACKING_URL is the service's base address (`http://host:8081`); a trailing `/api/v1` is tolerated.
 * Both TRACKING_URL and TRACKING_WEBHOOK_KEY are needed: without the key every call would be refused.
 */
export function trackingTargetOf(config: Pick<InventoryConfig, 'trackingUrl' | 'trackingWebhookKey'>): TrackingTarget | undefined {
  const url = config.trackingUrl?.trim();
  const key = config.trackingWebhookKey?.trim();
  if (!url || !key) return undefined;
  return { baseUrl: url.replace(/\/+$/, '').replace(/\/api\/v1$/, ''), key };
}

const RECEIVER_PATHS: Record<NotificationKind, string> = {
  'stock-in': `${API_PREFIX}/integrations/inventory/stock-in`,
  outbound: `${API_PREFIX}/integrations/inventory/outbound`,
};

/** POSTs one notification to its receiver (contract §5). Never throws: a failure is an answer too. */
export function postNotification(
  target: TrackingTarget,
  kind: NotificationKind,
  payload: unknown,
  signal: AbortSignal,
): Promise<TrackingAnswer> {
  return call(`${target.baseUrl}${RECEIVER_PATHS[kind]}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': target.key },
    body: JSON.stringify(payload),
    signal,
  });
}

/** GET /integrations/products/{sn} (contract §8): the product's identity card, with the webhook key. */
export function getProductCard(target: TrackingTarget, serialNumber: string, signal: AbortSignal): Promise<TrackingAnswer> {
  return call(`${target.baseUrl}${API_PREFIX}/integrations/products/${encodeURIComponent(serialNumber)}`, {
    headers: { 'x-api-key': target.key },
    signal,
  });
}

async function call(url: string, init: RequestInit): Promise<TrackingAnswer> {
  try {
    const response = await fetch(url, init);
    return { status: response.status, body: await response.text() };
  } catch (err) {
    return { networkError: describeNetworkError(err) };
  }
}

function describeNetworkError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  if (err.name === 'TimeoutError') return '请求超时';
  if (err.name === 'AbortError') return '请求被取消';
  const cause = err.cause as { code?: string; message?: string } | undefined;
  return [err.message, cause?.code ?? cause?.message].filter(Boolean).join(': ');
}

/** The 503 of a call that needed the tracking service and could not have it. */
export function upstreamUnavailable(reason: 'not_configured' | 'unreachable' | 'rejected' | 'invalid_answer', detail: string): AppError {
  const messages = {
    not_configured: '未配置生产追踪服务（TRACKING_URL 与 TRACKING_WEBHOOK_KEY）',
    unreachable: '生产追踪服务暂时无法访问',
    rejected: '生产追踪服务拒绝了请求（请检查 TRACKING_WEBHOOK_KEY 与对方的 WEBHOOK_API_KEY 是否一致）',
    invalid_answer: '生产追踪服务返回了无法识别的数据',
  } as const;
  return new AppError('UPSTREAM_UNAVAILABLE', `${messages[reason]}${detail ? `：${detail}` : ''}`, { reason });
}
