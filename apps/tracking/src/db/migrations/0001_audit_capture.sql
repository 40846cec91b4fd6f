-- Audit capture: every insert, update and delete of a business table writes an audit record in the
-- same transaction. The actor, department and request URL come from transaction-local settings
-- (app.actor, app.company, app.request_url) that the service sets when it opens a transaction;
-- a write without them is attributed to 'system'. The notification receivers put the operator's
-- label into app.actor. Arguments: module, target-name column, id column.
CREATE OR REPLACE FUNCTION audit_capture() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  module_name text := TG_ARGV[0];
  name_column text := coalesce(TG_ARGV[1], '');
  id_column text := coalesce(TG_ARGV[2], 'id');
  new_row jsonb;
  old_row jsonb;
  subject jsonb;
  change_list jsonb;
  details jsonb;
  action_name text;
BEGIN
  IF TG_OP <> 'DELETE' THEN
    SELECT coalesce(jsonb_object_agg(key, value), '{}'::jsonb) INTO new_row
      FROM jsonb_each(to_jsonb(NEW)) WHERE key !~* '(password|passwd|secret|token|private_key)';
  END IF;
  IF TG_OP <> 'INSERT' THEN
    SELECT coalesce(jsonb_object_agg(key, value), '{}'::jsonb) INTO old_row
      FROM jsonb_each(to_jsonb(OLD)) WHERE key !~* '(password|passwd|secret|token|private_key)';
  END IF;
  subject := coalesce(new_row, old_row);

  IF TG_OP = 'UPDATE' THEN
    SELECT coalesce(jsonb_agg(jsonb_build_object('field', n.key, 'old', o.value, 'new', n.value) ORDER BY n.key), '[]'::jsonb)
      INTO change_list
      FROM jsonb_each(new_row) n JOIN jsonb_each(old_row) o USING (key)
     WHERE n.value IS DISTINCT FROM o.value AND n.key <> 'updated_at';
    IF jsonb_array_length(change_list) = 0 AND NOT (to_jsonb(NEW) IS DISTINCT FROM to_jsonb(OLD)) THEN
      RETURN NULL;
    END IF;
    IF jsonb_array_length(change_list) = 0 THEN
      -- only a credential or updated_at changed: record that something changed, never the value
      change_list := '[{"field":"credentials","old":null,"new":null}]'::jsonb;
    END IF;
    details := jsonb_build_object('changes', change_list, 'snapshot', new_row);
    action_name := 'UPDATE';
  ELSIF TG_OP = 'INSERT' THEN
    details := jsonb_build_object('created', new_row);
    action_name := 'CREATE';
  ELSE
    details := jsonb_build_object('deleted_snapshot', old_row);
    action_name := 'DELETE';
  END IF;

  INSERT INTO audit_logs (module, action, table_name, target_id, target_name, username, department, request_url, details)
  VALUES (
    module_name,
    action_name,
    TG_TABLE_NAME,
    subject->>id_column,
    CASE WHEN name_column <> '' THEN subject->>name_column END,
    coalesce(nullif(current_setting('app.actor', true), ''), 'system'),
    coalesce(subject->>'department', nullif(current_setting('app.company', true), '')),
    nullif(current_setting('app.request_url', true), ''),
    details
  );
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER audit_users AFTER INSERT OR UPDATE OR DELETE ON users
  FOR EACH ROW EXECUTE FUNCTION audit_capture('用户管理', 'username');
