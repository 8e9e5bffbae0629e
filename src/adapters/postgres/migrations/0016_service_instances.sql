-- Which instance of the service runs each analysis, and which instances are alive: an analysis whose
-- instance stopped heart-beating (killed, crashed, its host lost) is ended `failed` by a live instance
-- instead of staying `running` for ever.

CREATE TABLE service_instances (
    id           uuid PRIMARY KEY,
    started_at   timestamptz NOT NULL,
    heartbeat_at timestamptz NOT NULL
);

-- NULL: written by a release before this one.
ALTER TABLE analyses ADD COLUMN instance_id uuid;
CREATE INDEX analyses_unfinished_idx ON analyses (created_at) WHERE status IN ('pending', 'running');
