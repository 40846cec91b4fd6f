CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
CREATE INDEX "materials_name_trgm_idx" ON "materials" USING gin ("name" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "materials_spec_model_trgm_idx" ON "materials" USING gin ("spec_model" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "materials_category_trgm_idx" ON "materials" USING gin ("category" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "stock_rows_sku_trgm_idx" ON "stock_rows" USING gin ("sku" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "stock_rows_batch_trgm_idx" ON "stock_rows" USING gin ("batch_number" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "stock_rows_serial_trgm_idx" ON "stock_rows" USING gin ("serial_number" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "stock_rows_location_trgm_idx" ON "stock_rows" USING gin ("warehouse_location" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "stock_rows_location_prefix_idx" ON "stock_rows" USING btree ("warehouse_location" text_pattern_ops);