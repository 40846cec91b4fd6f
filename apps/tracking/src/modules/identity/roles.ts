export { TRACKING_ROLES, type TrackingRole } from '../../db/schema/index.js';

/**
 * The tracking service authorises by role; actors carry no grants. A route only the SUPER_ADMIN may
 * call declares this code in `config.permission`: no role is granted it, and the platform's permission
 * check lets SUPER_ADMIN pass every code.
 */
export const SUPER_ADMIN_ONLY = 'super_admin_only';
