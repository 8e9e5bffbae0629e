-- Covenant tests: one row per test of a deal's agreement against a borrower's statements, kept as
-- answered (body) with the columns a deal's list is read by. Written once, never changed.

CREATE TABLE covenant_tests (
    id               uuid PRIMARY KEY,
    owner_id         uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    deal_id          bigint NOT NULL,
    document_id      bigint NOT NULL,
    document_version integer NOT NULL,
    statement_set_id uuid,
    period_end       date NOT NULL,
    compliance       text NOT NULL,
    created_at       timestamptz NOT NULL,
    body             jsonb NOT NULL
);

CREATE INDEX covenant_tests_deal_idx ON covenant_tests (deal_id, created_at DESC, id DESC);
