import { Decimal, toQuantityOrZero } from '@wms/platform';
import type { OutboundRequestRow } from '../../db/schema/index.js';
import { reservedOnRow } from '../reservation/index.js';
import { OPEN_STATUSES } from './request-status.js';
import type { StockRowView } from '../stock/schemas.js';

/**
 * The add-back rule (spec 4.1 /outbound/scan): a request's own reservation counts as available to it.
 * Only an outbound request whose reservation is open (status 0 or 1) adds back; any other request,
 * or none, sees the live figure.
 */
export function addBackFor(request: Pick<OutboundRequestRow, 'bizType' | 'status' | 'itemsJson'> | null, stockId: number): Decimal {
  if (!request || request.bizType !== 'outbound' || !OPEN_STATUSES.includes(request.status)) return new Decimal(0);
  return reservedOnRow(request.itemsJson, stockId);
}

/** A row view with available_quantity normalised for the request, plus the live figure. */
export function withAddBack<T extends StockRowView>(view: T, live: string, addBack: Decimal) {
  return {
    ...view,
    available_quantity: toQuantityOrZero(addBack.isZero() ? live : addBack.plus(live).toString()),
    live_available_quantity: toQuantityOrZero(live),
    reserved_by_request: toQuantityOrZero(addBack.toString()),
    reservation_applied: addBack.greaterThan(0),
  };
}
