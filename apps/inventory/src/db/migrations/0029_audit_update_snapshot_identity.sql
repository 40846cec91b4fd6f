-- UPDATE records without the whole row (issue 14, decisions Platform 8): an UPDATE record's details are its
-- changes and, as `snapshot`, only the row's sku and reference columns (names ending in _id) instead of the
-- whole row. Spec 2.12 gives a record's details as created, deleted_snapshot or payload, "plus a changes list
-- for UPDATE", and resolves what an update does not carry by lookup (target_display "when target_id hits
-- exactly one stock table", the BOM child "from looking up target_id"); the views read nothing else from an
-- update's snapshot, and /audit/labels offers no view of it. The whole row was two thirds of a stock row's
-- update record (≈ 620 of its details' bytes) and to_jsonb of it a measurable share of every stock write
-- (docs/benchmarks.md). Records written before keep their whole-row snapshot; the views read both.
--
-- audit_capture_source() is made again with that one change, and audit_attach() runs again for every
-- audited table (the arguments of 0028), so each generated function is what the generator makes now
-- (auditTriggerProblems).

CREATE OR REPLACE FUNCTION audit_capture_source(target regclass, module_name text, name_column text, id_column text)
RETURNS text
LANGUAGE plpgsql STABLE AS $gen$
DECLARE
  credentials text[];
  has_company boolean;
  base_id_type regtype;
  changes text;
  unlisted_change text;
  snapshot text;
  identity text;
  company text;
  target_name text;
BEGIN
  IF EXISTS (SELECT FROM pg_attribute a WHERE a.attrelid = target AND a.attnum > 0 AND NOT a.attisdropped
              AND a.attname IN ('audit_snapshot', 'audit_order', 'audit_changes', 'audit_unlisted_change')) THEN
    RAISE EXCEPTION 'audit: a column of % has a name the capture uses itself', target;
  END IF;
  SELECT coalesce(array_agg(a.attname::text ORDER BY a.attnum) FILTER (WHERE a.attname ~* '(password|passwd|secret|token|private_key)'), '{}'),
         coalesce(bool_or(a.attname = 'company_name'), false),
         min(a.atttypid::regtype::text) FILTER (WHERE a.attname = 'base_id')
    INTO credentials, has_company, base_id_type
    FROM pg_attribute a
   WHERE a.attrelid = target AND a.attnum > 0 AND NOT a.attisdropped;

  -- Per column, "o.c IS DISTINCT FROM n.c" where SQL equality of the type is equality of its to_jsonb
  -- values (the generic capture compared jsonb), else the jsonb values themselves (arrays: bounds; cube).
  WITH c AS (
    SELECT a.attname::text AS name, a.attnum,
           a.attname ~* '(password|passwd|secret|token|private_key)' AS credential,
           CASE WHEN a.atttypid = ANY ('{int2,int4,int8,numeric,bool,date,timestamp,timestamptz,jsonb,uuid}'::regtype[])
                  OR a.atttypid = ANY ('{text,varchar}'::regtype[])
                     AND (SELECT co.collisdeterministic FROM pg_collation co WHERE co.oid = a.attcollation)
                THEN format('o.%1$I IS DISTINCT FROM n.%1$I', a.attname)
                ELSE format('to_jsonb(o.%1$I) IS DISTINCT FROM to_jsonb(n.%1$I)', a.attname) END AS differs
      FROM pg_attribute a
     WHERE a.attrelid = target AND a.attnum > 0 AND NOT a.attisdropped)
  SELECT string_agg(format('CASE WHEN %s THEN jsonb_build_object(''field'', %L, ''old'', o.%I, ''new'', n.%I) END',
                           c.differs, c.name, c.name, c.name), E',\n                     '
                    -- the field order of the generic capture's jsonb_agg(… ORDER BY key)
                    ORDER BY c.name COLLATE "default")
           FILTER (WHERE NOT c.credential AND c.name <> 'updated_at'),
         coalesce(string_agg(c.differs, ' OR ' ORDER BY c.attnum) FILTER (WHERE c.credential OR c.name = 'updated_at'), 'false')
    INTO changes, unlisted_change
    FROM c;

  -- An UPDATE record's snapshot: the row's sku and reference columns (names ending in _id), what the
  -- views read from it (target_display's base_id and sku, the BOM summary's child_id, the names behind ids);
  -- the changes are the record. NULL when the table has none: the record then holds its changes only.
  SELECT 'jsonb_build_object(' || string_agg(format('%L, %%1$s.%I', a.attname, a.attname), ', ' ORDER BY a.attnum) || ')'
    INTO identity
    FROM pg_attribute a
   WHERE a.attrelid = target AND a.attnum > 0 AND NOT a.attisdropped
     AND (a.attname = 'sku' OR a.attname LIKE '%\_id')
     AND a.attname !~* '(password|passwd|secret|token|private_key)';

  snapshot := CASE WHEN cardinality(credentials) = 0 THEN 'to_jsonb(%1$s)' ELSE format('(to_jsonb(%%1$s) - %L::text[])', credentials) END;
  -- the row's company, else the company of its material (base_id), else the session's
  company := concat_ws(', ',
    CASE WHEN has_company THEN audit_value_text(target, 'company_name', '%1$s') END,
    CASE WHEN base_id_type IS NOT NULL THEN format('(SELECT m.company_name FROM materials m WHERE m.id = %s)',
      CASE WHEN base_id_type = 'integer'::regtype THEN '%1$s.base_id' ELSE '(' || audit_value_text(target, 'base_id', '%1$s') || ')::int' END) END,
    'session_company');
  IF company <> 'session_company' THEN company := 'coalesce(' || company || ')'; END IF;
  target_name := CASE WHEN name_column = '' THEN 'NULL::text' ELSE audit_value_text(target, name_column, '%1$s') END;

  RETURN format($body$
DECLARE
  actor_name text := coalesce(nullif(current_setting('app.actor', true), ''), 'system');
  session_company text := nullif(current_setting('app.company', true), '');
  session_url text := nullif(current_setting('app.request_url', true), '');
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO audit_logs (module, action, table_name, target_id, target_name, username, company_name, request_url, details)
    SELECT %1$L, 'CREATE', TG_TABLE_NAME, %2$s, %3$s, actor_name,
           %4$s, session_url,
           jsonb_build_object('created', %5$s)
      FROM new_rows n;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO audit_logs (module, action, table_name, target_id, target_name, username, company_name, request_url, details)
    SELECT %1$L, 'DELETE', TG_TABLE_NAME, %6$s, %7$s, actor_name,
           %8$s, session_url,
           jsonb_build_object('deleted_snapshot', %9$s)
      FROM old_rows o;
  ELSE
    INSERT INTO audit_logs (module, action, table_name, target_id, target_name, username, company_name, request_url, details)
    SELECT %1$L, 'UPDATE', TG_TABLE_NAME, %2$s, %3$s, actor_name,
           %4$s, session_url,
           jsonb_build_object('changes', CASE WHEN cardinality(n.audit_changes) = 0
                                              THEN '[{"field":"credentials","old":null,"new":null}]'::jsonb
                                              ELSE to_jsonb(n.audit_changes) END%13$s)
      FROM (SELECT n.*,
                   array_remove(ARRAY[
                     %10$s
                   ]::jsonb[], NULL) AS audit_changes,
                   %11$s AS audit_unlisted_change
              FROM (SELECT r.*, %12$s AS audit_snapshot, row_number() OVER () AS audit_order FROM new_rows r) n
              JOIN (SELECT r.*, row_number() OVER () AS audit_order FROM old_rows r) o USING (audit_order)
            OFFSET 0) n
     WHERE cardinality(n.audit_changes) > 0 OR n.audit_unlisted_change
     ORDER BY n.audit_order;
  END IF;
  RETURN NULL;
END;
$body$,
    module_name,
    audit_value_text(target, id_column, 'n'), format(target_name, 'n'), format(company, 'n'), format(snapshot, 'n'),
    audit_value_text(target, id_column, 'o'), format(target_name, 'o'), format(company, 'o'), format(snapshot, 'o'),
    changes, unlisted_change, coalesce(format(identity, 'r'), 'NULL::jsonb'),
    CASE WHEN identity IS NOT NULL THEN E',\n                              ''snapshot'', n.audit_snapshot' ELSE '' END);
END;
$gen$;

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
