import type { InventoryDeps, InventoryFastify } from '../../app-types.js';

export function registerOutboundRoutes(_app: InventoryFastify, _deps: InventoryDeps) {}
