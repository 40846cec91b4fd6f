-- Audit capture for the stocktake tables (module 库存盘点) and the stock moves (module 库存管理, the module
-- of the stock rows they move). Sessions have no natural name; a draft is named by its item (uuid = sku),
-- an adjustment and a move by the sku they changed.
CREATE TRIGGER audit_stocktake_sessions AFTER INSERT OR UPDATE OR DELETE ON stocktake_sessions
  FOR EACH ROW EXECUTE FUNCTION audit_capture('库存盘点', '', 'id');
--> statement-breakpoint
CREATE TRIGGER audit_stocktake_drafts AFTER INSERT OR UPDATE OR DELETE ON stocktake_drafts
  FOR EACH ROW EXECUTE FUNCTION audit_capture('库存盘点', 'uuid', 'id');
--> statement-breakpoint
CREATE TRIGGER audit_stocktake_adjustments AFTER INSERT OR UPDATE OR DELETE ON stocktake_adjustments
  FOR EACH ROW EXECUTE FUNCTION audit_capture('库存盘点', 'sku', 'id');
--> statement-breakpoint
CREATE TRIGGER audit_stock_moves AFTER INSERT OR UPDATE OR DELETE ON stock_moves
  FOR EACH ROW EXECUTE FUNCTION audit_capture('库存管理', 'sku', 'id');
