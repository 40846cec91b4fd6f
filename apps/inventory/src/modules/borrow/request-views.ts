import type { Queryable } from '@wms/platform';
import type { BorrowRequestRow } from '../../db/schema/index.js';
import { iso, requestViewsWith, sharedRequestView, type RequestLookups } from '../request-workflow/request-views.js';
import { statusLabel } from './request-status.js';
import type { BorrowRequestView } from './schemas.js';

/** The only way a borrow request leaves the service. */
function toRequestView(row: BorrowRequestRow, lookups: RequestLookups): BorrowRequestView {
  return {
    ...sharedRequestView(row, lookups, statusLabel),
    expected_return_date: row.expectedReturnDate,
    dispatched_at: iso(row.dispatchedAt),
  };
}

export function toRequestViews(q: Queryable, requests: readonly BorrowRequestRow[]): Promise<BorrowRequestView[]> {
  return requestViewsWith(q, requests, toRequestView);
}

export async function toRequestViewOf(q: Queryable, request: BorrowRequestRow): Promise<BorrowRequestView> {
  const [view] = await toRequestViews(q, [request]);
  return view!;
}
