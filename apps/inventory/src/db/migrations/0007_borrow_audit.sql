-- Audit capture for the borrow tables (module 借用管理). Requests have no natural name; lines, returns
-- and transfers are named by what a person recognises (slip number, line id).
CREATE TRIGGER audit_borrow_requests AFTER INSERT OR UPDATE OR DELETE ON borrow_requests
  FOR EACH ROW EXECUTE FUNCTION audit_capture('借用管理', '', 'id');
--> statement-breakpoint
CREATE TRIGGER audit_trans_borrow AFTER INSERT OR UPDATE OR DELETE ON trans_borrow
  FOR EACH ROW EXECUTE FUNCTION audit_capture('借用管理', 'borrow_no', 'id');
--> statement-breakpoint
CREATE TRIGGER audit_trans_borrow_return AFTER INSERT OR UPDATE OR DELETE ON trans_borrow_return
  FOR EACH ROW EXECUTE FUNCTION audit_capture('借用管理', 'borrow_id', 'id');
--> statement-breakpoint
CREATE TRIGGER audit_trans_borrow_transfer AFTER INSERT OR UPDATE OR DELETE ON trans_borrow_transfer
  FOR EACH ROW EXECUTE FUNCTION audit_capture('借用管理', 'borrow_id', 'id');
