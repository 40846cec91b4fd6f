export { allocateLargestFirst, mergeByMaterial } from './allocate.js';
export type { AllocatedLine, AllocationCandidate, MaterialNeed, Shortage } from './allocate.js';
export {
  candidatesStatement,
  planFromCandidates,
  planReservation,
  reserveStock,
  takeReservation,
  type CandidateRow,
  type ReservationPlan,
  type ReservedStock,
} from './reserve-stock.js';
export { reserveRows, type RowClaim } from './reserve-rows.js';
export { releaseReservation } from './release.js';
export { quantityPerMaterial, quantityPerRow, reservedOnRow, reservedPerRow } from './lines.js';
export type { HeldLine, RequestedItem, ReservationLine } from './lines.js';
