-- People-workflow results: written once, complete, when the workflow has finished; never updated.
-- owner_id is the user's id without a foreign key, as in the other run tables.

CREATE TABLE people_results (
    id           uuid PRIMARY KEY,
    owner_id     uuid NOT NULL,
    person_name  text NOT NULL,
    context      text,
    deal_id      bigint,
    session_id   text,
    result       jsonb NOT NULL,
    cdm_events   jsonb NOT NULL DEFAULT '[]',
    created_at   timestamptz NOT NULL,
    completed_at timestamptz NOT NULL
);
CREATE INDEX people_results_owner_created_idx ON people_results (owner_id, created_at DESC, id DESC);
CREATE INDEX people_results_created_idx ON people_results (created_at DESC, id DESC);
CREATE INDEX people_results_deal_idx ON people_results (deal_id, created_at DESC) WHERE deal_id IS NOT NULL;
