-- Quantitative analysis runs: request, progress, result and the CDM events of each run.

CREATE TABLE analyses (
    id           uuid PRIMARY KEY,
    owner_id     uuid NOT NULL,
    kind         text NOT NULL CHECK (kind IN ('company', 'market', 'loan_application')),
    request      jsonb NOT NULL,
    deal_id      bigint,
    status       text NOT NULL CHECK (status IN ('pending', 'running', 'completed', 'failed')),
    result       jsonb,
    error        text,
    cdm_events   jsonb NOT NULL DEFAULT '[]',
    created_at   timestamptz NOT NULL,
    completed_at timestamptz,
    CHECK ((status IN ('completed', 'failed')) = (completed_at IS NOT NULL))
);
CREATE INDEX analyses_owner_created_idx ON analyses (owner_id, created_at DESC, id DESC);
CREATE INDEX analyses_created_idx ON analyses (created_at DESC, id DESC);
CREATE INDEX analyses_deal_idx ON analyses (deal_id, created_at DESC) WHERE deal_id IS NOT NULL;
