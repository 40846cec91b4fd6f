export { TRACKING_ROLES, type TrackingRole } from '../../db/schema/index.js';

/** The tracking service authorises by role; actors carry no grants: SUPER_ADMIN-only routes use the platform's code. */
export { SUPER_ADMIN_ONLY } from '@wms/platform';
