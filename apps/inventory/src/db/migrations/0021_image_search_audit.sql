-- Audit capture for material images: module 物料管理 like the materials they belong to, named by the
-- uploaded file name. The snapshot holds the storage path, never the bytes; the descriptor column ends in
-- "embedding" and is hidden by the audit views.
CREATE TRIGGER audit_material_images AFTER INSERT OR UPDATE OR DELETE ON material_images
  FOR EACH ROW EXECUTE FUNCTION audit_capture('物料管理', 'file_name');
