import type { Queryable } from '@wms/platform';
import type { OutboundRequestRow } from '../../db/schema/index.js';
import { requestViewsWith } from '../request-workflow/request-views.js';
import { toRequestView } from './request-mapper.js';
import type { OutboundRequestView } from './schemas.js';

/** Views of a page of outbound requests, with one lookup query for the whole page. */
export function toRequestViews(q: Queryable, requests: readonly OutboundRequestRow[]): Promise<OutboundRequestView[]> {
  return requestViewsWith(q, requests, toRequestView);
}

export async function toRequestViewOf(q: Queryable, request: OutboundRequestRow): Promise<OutboundRequestView> {
  const [view] = await toRequestViews(q, [request]);
  return view!;
}
