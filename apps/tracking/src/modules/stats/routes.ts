import type { TrackingDeps, TrackingFastify } from '../../app-types.js';
import { registerAnalyticsRoutes } from './analytics/routes.js';
import { registerDashboardRoutes } from './dashboard/routes.js';
import { registerScreenRoutes } from './screen/routes.js';

/**
 * The statistics routes (contract §8): 7 dashboard, 8 analytics and 5 screen routes plus the people
 * history export. Login only, no role needed; every number is inside the caller's data scope (spec 4.3).
 */
export function registerStatsRoutes(app: TrackingFastify, deps: TrackingDeps) {
  registerDashboardRoutes(app, deps);
  registerAnalyticsRoutes(app, deps);
  registerScreenRoutes(app, deps);
}
