-- UPDATE records without the whole row (decisions Platform 8, the inventory service's migration 0029): an
-- UPDATE record's details are its changes and, as `snapshot`, only the row's sku and reference columns (names
-- ending in _id) instead of the whole row, so both services keep one capture rule. Spec 2.12 gives a record's
-- details as created or deleted_snapshot "plus a changes list for UPDATE"; this service's audit log reads
-- nothing else from an update. Records written before keep their whole-row snapshot.
--
-- audit_capture_source() is made again with that one change, and audit_attach() runs again for every
-- audited table (the arguments of 0009), so each generated function is what the generator makes now
-- (auditTriggerProblems).

CREATE OR REPLACE FUNCTION audit_capture_source(target regclass, module_name text, name_column text, id_column text)
RETURNS text
LANGUAGE plpgsql STABLE AS $gen$
DECLARE
  credentials text[];
  has_department boolean;
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
         coalesce(bool_or(a.attname = 'department'), false)
    INTO credentials, has_department
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
  -- the row's department, else the session's
  company := CASE WHEN has_department THEN format('coalesce(%s, session_company)', audit_value_text(target, 'department', '%1$s'))
                  ELSE 'session_company' END;
  target_name := CASE WHEN name_column = '' THEN 'NULL::text' ELSE audit_value_text(target, name_column, '%1$s') END;

  RETURN format($body$
DECLARE
  actor_name text := coalesce(nullif(current_setting('app.actor', true), ''), 'system');
  session_company text := nullif(current_setting('app.company', true), '');
  session_url text := nullif(current_setting('app.request_url', true), '');
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO audit_logs (module, action, table_name, target_id, target_name, username, department, request_url, details)
    SELECT %1$L, 'CREATE', TG_TABLE_NAME, %2$s, %3$s, actor_name,
           %4$s, session_url,
           jsonb_build_object('created', %5$s)
      FROM new_rows n;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO audit_logs (module, action, table_name, target_id, target_name, username, department, request_url, details)
    SELECT %1$L, 'DELETE', TG_TABLE_NAME, %6$s, %7$s, actor_name,
           %8$s, session_url,
           jsonb_build_object('deleted_snapshot', %9$s)
      FROM old_rows o;
  ELSE
    INSERT INTO audit_logs (module, action, table_name, target_id, target_name, username, department, request_url, details)
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
SELECT audit_attach('users', '用户管理', 'username');
--> statement-breakpoint
SELECT audit_attach('products', '产品管理', 'serial_number', 'id');
--> statement-breakpoint
SELECT audit_attach('materials', '产品型号', 'name', 'id');
--> statement-breakpoint
SELECT audit_attach('tasks', '任务管理', 'title', 'id');
--> statement-breakpoint
SELECT audit_attach('task_logs', '任务日志', 'action', 'id');
--> statement-breakpoint
SELECT audit_attach('reminders', '任务提醒', '', 'id');
--> statement-breakpoint
SELECT audit_attach('business_groups', '业务组管理', 'name', 'id');
--> statement-breakpoint
SELECT audit_attach('business_group_phases', '业务组管理', 'phase', 'group_id');
--> statement-breakpoint
SELECT audit_attach('business_group_members', '业务组管理', '', 'id');
--> statement-breakpoint
SELECT audit_attach('integration_events', '库存通知', 'reference', 'event_id');
