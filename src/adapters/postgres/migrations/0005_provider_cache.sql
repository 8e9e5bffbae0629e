-- Provider responses (SEC company facts) kept for a while, shared by every instance.

CREATE TABLE provider_cache (
    key        text PRIMARY KEY,
    body       bytea NOT NULL,
    fetched_at timestamptz NOT NULL
);
