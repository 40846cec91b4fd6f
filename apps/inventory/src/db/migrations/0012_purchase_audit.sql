-- Audit capture for purchasing. Purchase requests are module 采购入库 (a member of the 入库 group, spec 2.13;
-- the historic English value purchase_request names the same records), named by their request_no.
-- Suppliers are module 供应商管理, named by the supplier's name.
CREATE TRIGGER audit_purchase_requests AFTER INSERT OR UPDATE OR DELETE ON purchase_requests
  FOR EACH ROW EXECUTE FUNCTION audit_capture('采购入库', 'request_no', 'id');
--> statement-breakpoint
CREATE TRIGGER audit_suppliers AFTER INSERT OR UPDATE OR DELETE ON suppliers
  FOR EACH ROW EXECUTE FUNCTION audit_capture('供应商管理', 'name', 'id');
