import { API_PREFIX, AppError } from '@wms/platform';
import type { InventoryFastify } from '../../app-types.js';
import { inBothBorrowGroups } from '../borrow/borrow-paths.js';
import { inBothStockGroups } from '../stock/stock-paths.js';

/**
 * The former direct scrap endpoints (spec 4.4, 9.2; contract §8): every unit now leaves the books through
 * request → approval → execution, so each answers 410 ENDPOINT_REMOVED naming its replacement and does
 * nothing else. A login is still needed (401 without a token).
 */
export function registerRemovedScrapEndpoints(app: InventoryFastify) {
  const gone = (path: string, replacement: string) =>
    app.post(path, {
      schema: { tags: ['scrap'], summary: `已移除（410），请改用 ${replacement}`, deprecated: true },
    }, async () => {
      throw new AppError('ENDPOINT_REMOVED', `该接口已移除，请改用 ${replacement}（申请 → 审批 → 执行）`, { replacement });
    });

  gone(`${API_PREFIX}/scrap`, 'POST /scrap/request');
  inBothBorrowGroups('/:id/scrap', (path) => gone(path, 'POST /borrow/scrap-request'));
  inBothStockGroups('/defective/:id/scrap', (path) => gone(path, 'POST /inbound/stock/defective/<id>/scrap-request'));
}
