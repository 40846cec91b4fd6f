-- Audit capture for bills of materials (spec 2.12 rule 4, 6.3): both BOM tables are module BOM管理, decided by
-- the table. A version is unnamed (its parent and number are in the snapshot); a child line is unnamed too and
-- its snapshot carries parent_id, child_id and quantity, which the BOM summaries read.
CREATE TRIGGER audit_bom_versions AFTER INSERT OR UPDATE OR DELETE ON bom_versions
  FOR EACH ROW EXECUTE FUNCTION audit_capture('BOM管理', '', 'id');
--> statement-breakpoint
CREATE TRIGGER audit_bom_lines AFTER INSERT OR UPDATE OR DELETE ON bom_lines
  FOR EACH ROW EXECUTE FUNCTION audit_capture('BOM管理', '', 'id');
