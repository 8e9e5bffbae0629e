-- Chatbot sessions: the id is chosen by the client, the first append makes its caller the owner.
-- Messages are numbered per session; appends lock the session row, so numbers never collide.

CREATE TABLE chat_sessions (
    id         text PRIMARY KEY,
    owner_id   uuid NOT NULL,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
);
CREATE INDEX chat_sessions_owner_updated_idx ON chat_sessions (owner_id, updated_at DESC);

CREATE TABLE chat_messages (
    session_id        text NOT NULL REFERENCES chat_sessions (id) ON DELETE CASCADE,
    seq               integer NOT NULL CHECK (seq >= 1),
    role              text NOT NULL CHECK (role IN ('user', 'assistant')),
    content           text NOT NULL,
    workflow_launched text,
    workflow_result   jsonb,
    created_at        timestamptz NOT NULL,
    PRIMARY KEY (session_id, seq)
);
