-- Audit capture for returns (module 退货管理, named by the original outbound_no), the defective ledger
-- (module 不良品管理, named by its sku) and the low-stock alert state (module 库存预警, id base_id).
-- notification_outbox and mail_outbox are technical tables and carry no trigger.
CREATE TRIGGER audit_trans_return AFTER INSERT OR UPDATE OR DELETE ON trans_return
  FOR EACH ROW EXECUTE FUNCTION audit_capture('退货管理', 'outbound_no', 'id');
--> statement-breakpoint
CREATE TRIGGER audit_trans_defective_goods AFTER INSERT OR UPDATE OR DELETE ON trans_defective_goods
  FOR EACH ROW EXECUTE FUNCTION audit_capture('不良品管理', 'sku', 'id');
--> statement-breakpoint
CREATE TRIGGER audit_material_stock_alerts AFTER INSERT OR UPDATE OR DELETE ON material_stock_alerts
  FOR EACH ROW EXECUTE FUNCTION audit_capture('库存预警', '', 'base_id');
