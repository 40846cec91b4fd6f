-- The company of every stock row, for the stock list (decisions Platform 23): kept here by triggers, so
-- no write path of the service can forget it. A row takes its material's company when inserted or moved to
-- another material, and follows its material when the material moves to another company; a deleted row
-- takes its entry with it (the foreign key cascades).
CREATE TABLE "stock_row_companies" (
	"stock_id" integer PRIMARY KEY NOT NULL,
	"company_name" text
);
--> statement-breakpoint
ALTER TABLE "stock_row_companies" ADD CONSTRAINT "stock_row_companies_stock_id_stock_rows_id_fk" FOREIGN KEY ("stock_id") REFERENCES "public"."stock_rows"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "stock_row_companies_company_idx" ON "stock_row_companies" USING btree ("company_name","stock_id");--> statement-breakpoint
CREATE FUNCTION stock_row_companies_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO stock_row_companies (stock_id, company_name)
  SELECT n.id, m.company_name FROM new_rows n JOIN materials m ON m.id = n.base_id;
  RETURN NULL;
END;
$$;--> statement-breakpoint
CREATE TRIGGER stock_rows_company_insert AFTER INSERT ON stock_rows
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION stock_row_companies_insert();--> statement-breakpoint
CREATE FUNCTION stock_row_companies_material_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE stock_row_companies c SET company_name = m.company_name
    FROM materials m WHERE m.id = NEW.base_id AND c.stock_id = NEW.id;
  RETURN NULL;
END;
$$;--> statement-breakpoint
-- Row-level: a statement trigger with transition tables cannot name columns, and only an UPDATE that
-- sets base_id queues this one (a reservation's update of quantities never does).
CREATE TRIGGER stock_rows_company_material AFTER UPDATE OF base_id ON stock_rows
  FOR EACH ROW WHEN (OLD.base_id IS DISTINCT FROM NEW.base_id) EXECUTE FUNCTION stock_row_companies_material_change();--> statement-breakpoint
CREATE FUNCTION stock_row_companies_company_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE stock_row_companies c SET company_name = NEW.company_name
    FROM stock_rows s WHERE s.base_id = NEW.id AND c.stock_id = s.id;
  RETURN NULL;
END;
$$;--> statement-breakpoint
CREATE TRIGGER materials_stock_row_companies AFTER UPDATE OF company_name ON materials
  FOR EACH ROW WHEN (OLD.company_name IS DISTINCT FROM NEW.company_name) EXECUTE FUNCTION stock_row_companies_company_change();--> statement-breakpoint
INSERT INTO stock_row_companies (stock_id, company_name)
SELECT s.id, m.company_name FROM stock_rows s JOIN materials m ON m.id = s.base_id;
