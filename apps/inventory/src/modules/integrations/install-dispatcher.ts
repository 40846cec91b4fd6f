import type { InventoryDeps, InventoryFastify } from '../../app-types.js';
import { DEFAULT_DISPATCHER_SETTINGS, OutboxDispatcher, type DispatcherSettings } from './outbox-dispatcher.js';
import { trackingTargetOf } from './tracking-client.js';

export interface DispatcherOptions extends Partial<DispatcherSettings> {
  /** false: no dispatcher in this app (messages stay pending). Default true. */
  enabled?: boolean;
}

/** Starts the outbox dispatcher when the app is ready and stops it, cleanly, when the app closes. */
export function installOutboxDispatcher(app: InventoryFastify, deps: InventoryDeps, options: DispatcherOptions = {}): OutboxDispatcher | undefined {
  if (options.enabled === false) return undefined;
  const { enabled: _enabled, ...overrides } = options;
  const dispatcher = new OutboxDispatcher(deps.database, deps.config, { ...DEFAULT_DISPATCHER_SETTINGS, ...overrides }, app.log);
  if (deps.config.trackingUrl && !trackingTargetOf(deps.config)) {
    app.log.warn('[outbox] 已设置 TRACKING_URL 但缺少 TRACKING_WEBHOOK_KEY：通知保持待投递 (pending)');
  }
  app.addHook('onReady', async () => dispatcher.start());
  app.addHook('onClose', () => dispatcher.stop());
  return dispatcher;
}
