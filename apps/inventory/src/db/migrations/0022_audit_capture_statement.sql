-- Audit capture per statement (issue 14): the same audit_logs records as the row-level audit_capture()
-- of 0001 (module, action, target, actor, company, URL, details with created / deleted_snapshot /
-- changes + snapshot, credential columns left out, updated_at ignored, the 'credentials' pseudo-change,
-- nothing for a no-op update), written by ONE INSERT … SELECT per statement from its transition tables
-- instead of a plpgsql call, four jsonb_each scans, a regexp per key and a materials lookup per row.
--
-- PostgreSQL allows transition tables only on single-event triggers, so every audited table gets three
-- triggers (audit_<table>_insert / _update / _delete), made by audit_attach(). Arguments: module,
-- target-name column ('' for none), id column, then the credential-like columns as a text[] literal,
-- read from the catalogs by audit_attach() when the triggers are made (a migration that adds a
-- credential-like column to an audited table calls audit_attach() again; the audit-capture-statement
-- test fails when the arguments and the catalogs disagree).
--
-- Invariants: PostgreSQL fills the old and the new transition table of an UPDATE together, one row
-- each per updated row, so the n-th old row and the n-th new row (read by a plain scan, which keeps that
-- order) are the OLD and NEW the row-level trigger saw — also when an UPDATE changes a primary key (every
-- change to role_permissions does); the audit-capture-statement test fails if that ever stops holding.
-- Records follow that order within a statement, as the row-level trigger's did. `OFFSET 0` keeps each
-- row's to_jsonb from being computed once per use.
CREATE FUNCTION audit_capture_statement() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  module_name text := TG_ARGV[0];
  name_column text := nullif(TG_ARGV[1], '');
  id_column text := TG_ARGV[2];
  credential_columns text[] := TG_ARGV[3]::text[];
  actor_name text := coalesce(nullif(current_setting('app.actor', true), ''), 'system');
  session_company text := nullif(current_setting('app.company', true), '');
  session_url text := nullif(current_setting('app.request_url', true), '');
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO audit_logs (module, action, table_name, target_id, target_name, username, company_name, request_url, details)
    SELECT module_name, 'CREATE', TG_TABLE_NAME, e.subject->>id_column, e.subject->>name_column, actor_name,
           -- the row's company, else the company of its material (base_id), else the session's
           coalesce(e.subject->>'company_name',
                    (SELECT m.company_name FROM materials m WHERE m.id = (e.subject->>'base_id')::int),
                    session_company),
           session_url, jsonb_build_object('created', e.subject)
      FROM (SELECT to_jsonb(r) - credential_columns AS subject FROM new_rows r OFFSET 0) e;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO audit_logs (module, action, table_name, target_id, target_name, username, company_name, request_url, details)
    SELECT module_name, 'DELETE', TG_TABLE_NAME, e.subject->>id_column, e.subject->>name_column, actor_name,
           coalesce(e.subject->>'company_name',
                    (SELECT m.company_name FROM materials m WHERE m.id = (e.subject->>'base_id')::int),
                    session_company),
           session_url, jsonb_build_object('deleted_snapshot', e.subject)
      FROM (SELECT to_jsonb(r) - credential_columns AS subject FROM old_rows r OFFSET 0) e;
  ELSE
    INSERT INTO audit_logs (module, action, table_name, target_id, target_name, username, company_name, request_url, details)
    SELECT module_name, 'UPDATE', TG_TABLE_NAME, c.subject->>id_column, c.subject->>name_column, actor_name,
           coalesce(c.subject->>'company_name',
                    (SELECT m.company_name FROM materials m WHERE m.id = (c.subject->>'base_id')::int),
                    session_company),
           session_url,
           jsonb_build_object(
             'changes',
             coalesce(
               (SELECT jsonb_agg(jsonb_build_object('field', f.key, 'old', c.old_row -> f.key, 'new', f.value) ORDER BY f.key)
                  FROM jsonb_each(c.subject) f
                 WHERE f.key <> 'updated_at' AND f.value IS DISTINCT FROM c.old_row -> f.key),
               -- only a credential or updated_at changed: record that something changed, never the value
               '[{"field":"credentials","old":null,"new":null}]'::jsonb),
             'snapshot', c.subject)
      FROM (SELECT event_order, a.full_row - credential_columns AS subject, b.full_row AS old_row
              FROM (SELECT to_jsonb(r) AS full_row, row_number() OVER () AS event_order FROM new_rows r) a
              JOIN (SELECT to_jsonb(r) AS full_row, row_number() OVER () AS event_order FROM old_rows r) b USING (event_order)
             -- a row whose stored value changed at all (a credential or updated_at alone counts; see below)
             WHERE a.full_row IS DISTINCT FROM b.full_row
            OFFSET 0) c
     ORDER BY c.event_order;
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
-- (Re)makes the three statement-level audit triggers of one table and drops its row-level one.
CREATE FUNCTION audit_attach(target regclass, module_name text, name_column text DEFAULT '', id_column text DEFAULT 'id')
RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  table_name text := (SELECT c.relname FROM pg_class c WHERE c.oid = target);
  credential_columns text[];
  event text;
  transition text;
BEGIN
  -- the same rule as the row-level capture: a column whose name looks like a credential is never recorded
  SELECT coalesce(array_agg(a.attname::text ORDER BY a.attnum), '{}') INTO credential_columns
    FROM pg_attribute a
   WHERE a.attrelid = target AND a.attnum > 0 AND NOT a.attisdropped
     AND a.attname ~* '(password|passwd|secret|token|private_key)';

  EXECUTE format('DROP TRIGGER IF EXISTS %I ON %s', 'audit_' || table_name, target);
  FOREACH event IN ARRAY ARRAY['insert', 'update', 'delete'] LOOP
    transition := CASE event
      WHEN 'insert' THEN 'NEW TABLE AS new_rows'
      WHEN 'update' THEN 'OLD TABLE AS old_rows NEW TABLE AS new_rows'
      ELSE 'OLD TABLE AS old_rows' END;
    EXECUTE format('DROP TRIGGER IF EXISTS %I ON %s', 'audit_' || table_name || '_' || event, target);
    EXECUTE format(
      'CREATE TRIGGER %I AFTER %s ON %s REFERENCING %s FOR EACH STATEMENT '
        'EXECUTE FUNCTION audit_capture_statement(%L, %L, %L, %L)',
      'audit_' || table_name || '_' || event, upper(event), target, transition,
      module_name, name_column, id_column, credential_columns::text);
  END LOOP;
END;
$$;
--> statement-breakpoint
SELECT audit_attach('users', '系统管理', 'username');
--> statement-breakpoint
SELECT audit_attach('role_permissions', '系统管理', 'permission_code', 'role_code');
--> statement-breakpoint
SELECT audit_attach('materials', '物料管理', 'name');
--> statement-breakpoint
SELECT audit_attach('material_images', '物料管理', 'file_name');
--> statement-breakpoint
SELECT audit_attach('material_stock_alerts', '库存预警', '', 'base_id');
--> statement-breakpoint
SELECT audit_attach('stock_rows', '库存管理', 'sku');
--> statement-breakpoint
SELECT audit_attach('stock_moves', '库存管理', 'sku', 'id');
--> statement-breakpoint
SELECT audit_attach('outbound_requests', '出库管理', '', 'id');
--> statement-breakpoint
SELECT audit_attach('trans_outbound', '出库管理', 'outbound_no', 'id');
--> statement-breakpoint
SELECT audit_attach('trans_return', '退货管理', 'outbound_no', 'id');
--> statement-breakpoint
SELECT audit_attach('trans_defective_goods', '不良品管理', 'sku', 'id');
--> statement-breakpoint
SELECT audit_attach('borrow_requests', '借用管理', '', 'id');
--> statement-breakpoint
SELECT audit_attach('trans_borrow', '借用管理', 'borrow_no', 'id');
--> statement-breakpoint
SELECT audit_attach('trans_borrow_return', '借用管理', 'borrow_id', 'id');
--> statement-breakpoint
SELECT audit_attach('trans_borrow_transfer', '借用管理', 'borrow_id', 'id');
--> statement-breakpoint
SELECT audit_attach('scrap_requests', '报废管理', '', 'id');
--> statement-breakpoint
SELECT audit_attach('trans_scrap', '报废管理', 'sku', 'id');
--> statement-breakpoint
SELECT audit_attach('purchase_requests', '采购入库', 'request_no', 'id');
--> statement-breakpoint
SELECT audit_attach('suppliers', '供应商管理', 'name', 'id');
--> statement-breakpoint
SELECT audit_attach('stocktake_sessions', '库存盘点', '', 'id');
--> statement-breakpoint
SELECT audit_attach('stocktake_drafts', '库存盘点', 'uuid', 'id');
--> statement-breakpoint
SELECT audit_attach('stocktake_adjustments', '库存盘点', 'sku', 'id');
--> statement-breakpoint
SELECT audit_attach('bom_versions', 'BOM管理', '', 'id');
--> statement-breakpoint
SELECT audit_attach('bom_lines', 'BOM管理', '', 'id');
--> statement-breakpoint
-- Fails (and with it the migration) while any row-level audit trigger is left: none is missed.
DROP FUNCTION audit_capture();
