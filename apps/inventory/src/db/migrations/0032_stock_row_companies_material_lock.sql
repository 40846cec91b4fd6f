-- The company triggers of 0030 read the material FOR SHARE (decisions Platform 23): a move of the material to
-- another company that has not committed yet is waited for and its company taken, and a move that starts
-- later waits for this row and then updates its entry, so the two can never disagree. Replaced here rather
-- than in 0030, which databases may already have applied.
CREATE OR REPLACE FUNCTION stock_row_companies_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO stock_row_companies (stock_id, company_name)
  SELECT n.id, m.company_name FROM new_rows n JOIN materials m ON m.id = n.base_id FOR SHARE OF m;
  RETURN NULL;
END;
$$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION stock_row_companies_material_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE stock_row_companies c SET company_name = (SELECT m.company_name FROM materials m WHERE m.id = NEW.base_id FOR SHARE)
   WHERE c.stock_id = NEW.id;
  RETURN NULL;
END;
$$;
