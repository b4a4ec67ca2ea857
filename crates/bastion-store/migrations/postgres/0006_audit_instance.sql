-- The gateway instance that recorded each audit event (issue 8 item 5): several gateways
-- may share one PostgreSQL store. NULL for events recorded before this column existed.
ALTER TABLE audit_events ADD COLUMN IF NOT EXISTS instance TEXT;
CREATE INDEX IF NOT EXISTS audit_events_instance ON audit_events (instance, time_ms);
