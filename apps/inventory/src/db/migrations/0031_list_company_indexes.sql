-- The stock list's company condition without reading rows (docs/benchmarks.md, the lists at 100,000 rows):
-- a company's material ids from an index of their own, and a location's rows with their material's id in
-- the location index, so a zone is counted by company from the index alone.
DROP INDEX "stock_rows_location_prefix_idx";--> statement-breakpoint
CREATE INDEX "materials_company_id_idx" ON "materials" USING btree ("company_name","id");--> statement-breakpoint
CREATE INDEX "stock_rows_location_prefix_idx" ON "stock_rows" USING btree ("warehouse_location" text_pattern_ops,"base_id");