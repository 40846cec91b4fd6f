import type { InventoryDeps, InventoryFastify } from '../../app-types.js';

export function registerMaterialRoutes(_app: InventoryFastify, _deps: InventoryDeps) {}
