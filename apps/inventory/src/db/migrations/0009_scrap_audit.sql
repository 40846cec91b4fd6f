-- Audit capture for the scrap tables (module 报废管理). Requests have no natural name (like the other
-- request tables); a scrap record is named by the sku of what was scrapped.
CREATE TRIGGER audit_scrap_requests AFTER INSERT OR UPDATE OR DELETE ON scrap_requests
  FOR EACH ROW EXECUTE FUNCTION audit_capture('报废管理', '', 'id');
--> statement-breakpoint
CREATE TRIGGER audit_trans_scrap AFTER INSERT OR UPDATE OR DELETE ON trans_scrap
  FOR EACH ROW EXECUTE FUNCTION audit_capture('报废管理', 'sku', 'id');
