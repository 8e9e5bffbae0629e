-- Accepted events of the rolling-window rate limits (workflow budget, sign-in throttling), shared by
-- every instance when RATE_LIMIT_STORE=postgres. Rows older than a window are deleted as keys are used.

CREATE TABLE rate_limit_events (
    key   text NOT NULL,
    at_ms bigint NOT NULL
);
CREATE INDEX rate_limit_events_key_at_idx ON rate_limit_events (key, at_ms);
