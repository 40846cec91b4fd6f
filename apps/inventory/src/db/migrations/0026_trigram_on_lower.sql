DROP INDEX "materials_name_trgm_idx";--> statement-breakpoint
DROP INDEX "materials_spec_model_trgm_idx";--> statement-breakpoint
DROP INDEX "materials_category_trgm_idx";--> statement-breakpoint
DROP INDEX "stock_rows_sku_trgm_idx";--> statement-breakpoint
DROP INDEX "stock_rows_batch_trgm_idx";--> statement-breakpoint
DROP INDEX "stock_rows_serial_trgm_idx";--> statement-breakpoint
DROP INDEX "stock_rows_location_trgm_idx";--> statement-breakpoint
CREATE INDEX "materials_name_trgm_idx" ON "materials" USING gin (lower("name") gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "materials_spec_model_trgm_idx" ON "materials" USING gin (lower("spec_model") gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "materials_category_trgm_idx" ON "materials" USING gin (lower("category") gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "stock_rows_sku_trgm_idx" ON "stock_rows" USING gin (lower("sku") gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "stock_rows_batch_trgm_idx" ON "stock_rows" USING gin (lower("batch_number") gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "stock_rows_serial_trgm_idx" ON "stock_rows" USING gin (lower("serial_number") gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "stock_rows_location_trgm_idx" ON "stock_rows" USING gin (lower("warehouse_location") gin_trgm_ops);