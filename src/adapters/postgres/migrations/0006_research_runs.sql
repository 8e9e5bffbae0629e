-- Research runs: a durable queue. Workers claim a run with FOR UPDATE SKIP LOCKED and hold it under
-- a lease they renew; a run whose lease ran out is claimed again and resumes from `progress`.

CREATE TABLE research_runs (
    id               uuid PRIMARY KEY,
    owner_id         uuid NOT NULL,
    query            text NOT NULL,
    deal_id          bigint,
    max_iterations   integer NOT NULL CHECK (max_iterations BETWEEN 1 AND 20),
    status           text NOT NULL CHECK (status IN ('pending', 'running', 'completed', 'failed')),
    progress         jsonb NOT NULL DEFAULT 'null',
    answer           text,
    error            text,
    cdm_events       jsonb NOT NULL DEFAULT '[]',
    attempts         integer NOT NULL DEFAULT 0,
    elapsed_ms       bigint NOT NULL DEFAULT 0,
    lease_owner      uuid,
    lease_expires_at timestamptz,
    created_at       timestamptz NOT NULL,
    completed_at     timestamptz,
    CHECK ((status IN ('completed', 'failed')) = (completed_at IS NOT NULL)),
    CHECK ((status = 'running') = (lease_owner IS NOT NULL))
);
-- The queue: only unfinished runs, in arrival order.
CREATE INDEX research_runs_queue_idx ON research_runs (created_at, id) WHERE status IN ('pending', 'running');
CREATE INDEX research_runs_owner_created_idx ON research_runs (owner_id, created_at DESC, id DESC);
CREATE INDEX research_runs_created_idx ON research_runs (created_at DESC, id DESC);
CREATE INDEX research_runs_deal_idx ON research_runs (deal_id, created_at DESC) WHERE deal_id IS NOT NULL;
