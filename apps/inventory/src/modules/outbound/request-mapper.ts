import type { OutboundRequestRow } from '../../db/schema/index.js';
import { iso, sharedRequestView, type RequestLookups } from '../request-workflow/request-views.js';
import { statusLabel } from './request-status.js';
import type { OutboundRequestView } from './schemas.js';

export type { RequestLookups } from '../request-workflow/request-views.js';

/** The only way a request leaves the service. */
export function toRequestView(row: OutboundRequestRow, lookups: RequestLookups): OutboundRequestView {
  return {
    ...sharedRequestView(row, lookups, statusLabel),
    outbound_type: row.outboundType,
    source_return_id: row.sourceReturnId,
    executed_at: iso(row.executedAt),
  };
}
