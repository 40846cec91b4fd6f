import { AppError } from '@wms/platform';
import { STOCK_KINDS, type ScrapMode, type ScrapSource, type StockKind } from '../../db/schema/index.js';

/** Contract §8: the mode follows the source — stock rows are scanned, borrow lines and ledger entries are not. */
export const modeOfSource = (source: ScrapSource): ScrapMode => ((STOCK_KINDS as readonly string[]).includes(source) ? 'scan' : 'auto');

export const isStockSource = (source: ScrapSource): source is StockKind => modeOfSource(source) === 'scan';

/**
 * The one mode of a request (spec 2.8): every line's source must call for the same mode, and a mode
 * the caller names must be that one; anything else is 400 MIXED_SCRAP_MODES and nothing is written.
 */
export function singleModeOf(sources: readonly ScrapSource[], named: ScrapMode | undefined): ScrapMode {
  const modes = new Set(sources.map(modeOfSource));
  const [mode] = modes;
  if (modes.size > 1 || (named && named !== mode)) {
    throw new AppError(
      'MIXED_SCRAP_MODES',
      '一个报废申请只能有一种模式：库存行为扫码模式（scan），借用物品与不良品台账为自动模式（auto），请分开提交',
      { field: 'mode', modes: [...new Set([...modes, ...(named ? [named] : [])])] },
    );
  }
  return mode!;
}
