import { Type } from 'typebox';
import { PositiveQuantity } from '@wms/platform';

/** The scanned lines of an execution body: a barcode and a positive quantity each. */
export const ScannedLines = Type.Array(
  Type.Object({ barcode: Type.String({ minLength: 1, maxLength: 128 }), quantity: PositiveQuantity }),
  { minItems: 1, maxItems: 500 },
);

/** The snapshot of the scanned row every execution line view shows (row-snapshot.ts). */
export const RowSnapshotFields = {
  stock_id: Type.Integer(),
  source_table: Type.String(),
  base_id: Type.Integer(),
  sku: Type.String(),
  material_name: Type.String(),
  spec_model: Type.String(),
  unit: Type.String(),
};
