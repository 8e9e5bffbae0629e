-- Supplied financial statements of private borrowers: written once, complete, never updated.
-- `statements` is the checked set (currency and periods with every figure's source); `origin`
-- says how it arrived (JSON or a spreadsheet, with the rows read and not read).

CREATE TABLE statement_sets (
    id            uuid PRIMARY KEY,
    owner_id      uuid NOT NULL,
    borrower_name text NOT NULL,
    deal_id       bigint,
    origin        jsonb NOT NULL,
    statements    jsonb NOT NULL,
    created_at    timestamptz NOT NULL
);
CREATE INDEX statement_sets_deal_idx ON statement_sets (deal_id, created_at DESC, id DESC) WHERE deal_id IS NOT NULL;
