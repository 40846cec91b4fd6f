-- Every processed inventory notification leaves an audit entry attributed to its operator (spec §6),
-- also when it matched no product: the receivers put the operator's label into app.actor.
CREATE TRIGGER audit_integration_events AFTER INSERT OR UPDATE OR DELETE ON integration_events
  FOR EACH ROW EXECUTE FUNCTION audit_capture('库存通知', 'reference', 'event_id');
