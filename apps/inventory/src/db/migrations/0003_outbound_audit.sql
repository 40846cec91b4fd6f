-- Audit capture for the outbound tables (module 出库管理). A request has no natural name; an executed
-- line is named by its outbound_no.
CREATE TRIGGER audit_outbound_requests AFTER INSERT OR UPDATE OR DELETE ON outbound_requests
  FOR EACH ROW EXECUTE FUNCTION audit_capture('出库管理', '', 'id');
--> statement-breakpoint
CREATE TRIGGER audit_trans_outbound AFTER INSERT OR UPDATE OR DELETE ON trans_outbound
  FOR EACH ROW EXECUTE FUNCTION audit_capture('出库管理', 'outbound_no', 'id');
