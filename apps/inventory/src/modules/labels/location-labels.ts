import { AppError, type UseCaseContext } from '@wms/platform';
import { normalizeLocation } from '../stock/location.js';
import { symbologiesFor } from './barcodes.js';
import { existingLocations } from './label-rows.js';
import { DEFAULT_LAYOUT, renderLabelSheet, type LabelFont } from './label-sheet.js';
import type { LocationLabelsBody } from './schemas.js';

const LOCATION_TITLE_SIZE = 16;

/**
 * POST /warehouse/location-labels: one label per path, in the order given, the path written the way stock
 * rows store it (" A / 01 " is "A/01"). A path must be a node of the caller's location tree: a label
 * for a place no stock row knows would be scanned into nothing.
 */
export async function printLocationLabels(ctx: UseCaseContext, input: LocationLabelsBody, font?: LabelFont): Promise<Buffer> {
  const paths = input.locations.map((location) => normalizeLocation(location) ?? '');
  const empty = paths.indexOf('');
  if (empty >= 0) throw new AppError('VALIDATION_FAILED', '库位路径不能为空', { field: `locations.${empty}` });
  const known = await ctx.read((q) => existingLocations(q, ctx.scope(), [...new Set(paths)]));
  const missing = [...new Set(paths.filter((path) => !known.has(path)))];
  if (missing.length > 0) throw new AppError('NOT_FOUND', `库位不存在：${missing.join(', ')}`, { locations: missing });
  const labels = paths.map((path) => ({ code: path, symbologies: symbologiesFor(path, input.format), lines: [], titleSize: LOCATION_TITLE_SIZE }));
  return renderLabelSheet(labels, { layout: input.layout ?? DEFAULT_LAYOUT, font });
}
