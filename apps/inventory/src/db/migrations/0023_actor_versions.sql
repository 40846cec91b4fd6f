CREATE TABLE "role_versions" (
	"role_code" text PRIMARY KEY NOT NULL,
	"version" bigint DEFAULT 1 NOT NULL
);
--> statement-breakpoint
-- Any change to a role's grants raises that role's version (the first grant of a role creates it at 1).
-- Technical state, not business data: no audit trigger (the role_permissions change itself is audited).
CREATE OR REPLACE FUNCTION bump_role_version() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    INSERT INTO role_versions (role_code) VALUES (OLD.role_code)
    ON CONFLICT (role_code) DO UPDATE SET version = role_versions.version + 1;
  END IF;
  IF TG_OP <> 'DELETE' THEN
    INSERT INTO role_versions (role_code) VALUES (NEW.role_code)
    ON CONFLICT (role_code) DO UPDATE SET version = role_versions.version + 1;
  END IF;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER role_permissions_version AFTER INSERT OR UPDATE OR DELETE ON role_permissions
  FOR EACH ROW EXECUTE FUNCTION bump_role_version();
--> statement-breakpoint
INSERT INTO role_versions (role_code) SELECT DISTINCT role_code FROM role_permissions ON CONFLICT DO NOTHING;
