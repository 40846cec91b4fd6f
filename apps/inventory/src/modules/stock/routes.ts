import type { InventoryDeps, InventoryFastify } from '../../app-types.js';

export function registerStockRoutes(_app: InventoryFastify, _deps: InventoryDeps) {}
