-- Audit capture for the production-tracking tables. Writes made by the notification receivers carry
-- the operator in app.actor (spec 4.1), so their product changes are attributed to that person.
CREATE TRIGGER audit_products AFTER INSERT OR UPDATE OR DELETE ON products
  FOR EACH ROW EXECUTE FUNCTION audit_capture('产品管理', 'serial_number', 'id');
--> statement-breakpoint
CREATE TRIGGER audit_materials AFTER INSERT OR UPDATE OR DELETE ON materials
  FOR EACH ROW EXECUTE FUNCTION audit_capture('产品型号', 'name', 'id');
--> statement-breakpoint
CREATE TRIGGER audit_tasks AFTER INSERT OR UPDATE OR DELETE ON tasks
  FOR EACH ROW EXECUTE FUNCTION audit_capture('任务管理', 'title', 'id');
--> statement-breakpoint
CREATE TRIGGER audit_task_logs AFTER INSERT OR UPDATE OR DELETE ON task_logs
  FOR EACH ROW EXECUTE FUNCTION audit_capture('任务日志', 'action', 'id');
--> statement-breakpoint
CREATE TRIGGER audit_reminders AFTER INSERT OR UPDATE OR DELETE ON reminders
  FOR EACH ROW EXECUTE FUNCTION audit_capture('任务提醒', '', 'id');
--> statement-breakpoint
CREATE TRIGGER audit_business_groups AFTER INSERT OR UPDATE OR DELETE ON business_groups
  FOR EACH ROW EXECUTE FUNCTION audit_capture('业务组管理', 'name', 'id');
--> statement-breakpoint
CREATE TRIGGER audit_business_group_phases AFTER INSERT OR UPDATE OR DELETE ON business_group_phases
  FOR EACH ROW EXECUTE FUNCTION audit_capture('业务组管理', 'phase', 'group_id');
--> statement-breakpoint
CREATE TRIGGER audit_business_group_members AFTER INSERT OR UPDATE OR DELETE ON business_group_members
  FOR EACH ROW EXECUTE FUNCTION audit_capture('业务组管理', '', 'id');
