export { allocateLargestFirst, mergeByMaterial } from './allocate.js';
export type { AllocatedLine, AllocationCandidate, MaterialNeed, Shortage } from './allocate.js';
export { reserveStock } from './reserve-stock.js';
export { releaseReservation } from './release.js';
export { quantityPerMaterial, reservedOnRow, reservedPerRow } from './lines.js';
export type { RequestedItem, ReservationLine } from './lines.js';
