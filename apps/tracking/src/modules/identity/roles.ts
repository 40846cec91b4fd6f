export { TRACKING_ROLES, type TrackingRole } from '../../db/schema/index.js';
