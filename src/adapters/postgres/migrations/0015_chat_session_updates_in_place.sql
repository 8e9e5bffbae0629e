-- Every chat turn moves its session's `updated_at` and `last_seq`. An index on `updated_at` made
-- each of those updates write new entries into both of the table's indexes (no heap-only update);
-- no query reads sessions in that order. The owner's sessions are found by `owner_id` alone (a
-- user's sessions are few, and sorting them is cheap), so turns update the row in place, with room
-- left on each page for the new row version.

DROP INDEX IF EXISTS chat_sessions_owner_updated_idx;
CREATE INDEX chat_sessions_owner_idx ON chat_sessions (owner_id);
ALTER TABLE chat_sessions SET (fillfactor = 80);
