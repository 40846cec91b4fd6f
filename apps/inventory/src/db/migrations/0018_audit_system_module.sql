-- Audit modules (spec 2.13): users and role permissions are recorded under 系统管理, the module of the
-- system pages (system_user, system_permission, system_audit; menus, historic sys_element). Only the
-- trigger arguments change; records written before keep 用户管理 / 权限管理, which still have labels.
DROP TRIGGER IF EXISTS audit_users ON users;
--> statement-breakpoint
CREATE TRIGGER audit_users AFTER INSERT OR UPDATE OR DELETE ON users
  FOR EACH ROW EXECUTE FUNCTION audit_capture('系统管理', 'username');
--> statement-breakpoint
DROP TRIGGER IF EXISTS audit_role_permissions ON role_permissions;
--> statement-breakpoint
CREATE TRIGGER audit_role_permissions AFTER INSERT OR UPDATE OR DELETE ON role_permissions
  FOR EACH ROW EXECUTE FUNCTION audit_capture('系统管理', 'permission_code', 'role_code');
