-- Documents, their versions (each with what extraction found) and their review history.

CREATE TABLE documents (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    owner_id        uuid NOT NULL,
    title           text NOT NULL,
    deal_id         bigint,
    state           text NOT NULL
                    CHECK (state IN ('draft', 'submitted', 'approved', 'rejected', 'published', 'archived')),
    current_version integer NOT NULL CHECK (current_version >= 1),
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    -- Words of the title, parties, borrower and current text ('simple': no stemming, no stop
    -- words, as the memory store matches); stripped of positions to stay small for long texts.
    search          tsvector NOT NULL
);
CREATE INDEX documents_search_idx ON documents USING GIN (search);
CREATE INDEX documents_updated_idx ON documents (updated_at DESC, id DESC);
CREATE INDEX documents_owner_updated_idx ON documents (owner_id, updated_at DESC, id DESC);
CREATE INDEX documents_deal_idx ON documents (deal_id) WHERE deal_id IS NOT NULL;

CREATE TABLE document_versions (
    document_id               bigint NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    version                   integer NOT NULL CHECK (version >= 1),
    text                      text NOT NULL,
    text_sha256               text NOT NULL,
    extraction_status         text NOT NULL,
    agreement                 jsonb NOT NULL,
    report                    jsonb NOT NULL,
    -- The agreement's headline facts, for the list.
    borrower                  text,
    total_commitment          numeric,
    total_commitment_currency text,
    governing_law             text,
    agreement_date            date,
    parties                   text[] NOT NULL DEFAULT '{}',
    author_id                 uuid NOT NULL,
    created_at                timestamptz NOT NULL,
    PRIMARY KEY (document_id, version),
    CHECK ((total_commitment IS NULL) = (total_commitment_currency IS NULL))
);

CREATE TABLE document_reviews (
    document_id bigint NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    seq         bigint GENERATED ALWAYS AS IDENTITY,
    from_state  text,
    to_state    text NOT NULL,
    action      text NOT NULL,
    actor_id    uuid NOT NULL,
    at          timestamptz NOT NULL,
    comment     text,
    PRIMARY KEY (document_id, seq)
);
