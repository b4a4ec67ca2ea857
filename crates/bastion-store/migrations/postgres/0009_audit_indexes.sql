-- The three secondary indexes on audit_events are dropped, as on SQLite (see the SQLite
-- migration 9): the audit query (`Store::audit_events`: optional server, since and
-- instance filters written `($1 IS NULL OR server = $1)`, newest first by id) is planned
-- on SQLite as a scan by id that never read them (tested there), and every audit row the
-- gateway writes updated all three. Its PostgreSQL plan was not examined. A query that
-- needs an index adds it together with that query.
DROP INDEX IF EXISTS audit_events_server_time;
DROP INDEX IF EXISTS audit_events_time;
DROP INDEX IF EXISTS audit_events_instance;
