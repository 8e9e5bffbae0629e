-- Each session counts its messages, so that an append numbers its messages in the same statement
-- that locks the session row (INSERT … ON CONFLICT DO UPDATE) instead of reading max(seq) first.

ALTER TABLE chat_sessions ADD COLUMN last_seq integer NOT NULL DEFAULT 0 CHECK (last_seq >= 0);
UPDATE chat_sessions s
   SET last_seq = coalesce((SELECT max(m.seq) FROM chat_messages m WHERE m.session_id = s.id), 0);
