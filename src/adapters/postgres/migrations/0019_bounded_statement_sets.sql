-- Statement sets count in their owner's storage quota beside documents: how many sets each owner
-- keeps, and their bytes in the same `bytes` as the documents'. Each set keeps the bytes it was
-- counted for, so that deleting it gives back exactly that. Deletions of documents and statement
-- sets leave an entry in the audit trail, `deletions`: what the record was (fingerprints, not
-- content), whose, who deleted it, when, and what its owner's quota got back.

ALTER TABLE document_usage
    ADD COLUMN statement_sets bigint NOT NULL DEFAULT 0 CHECK (statement_sets >= 0);

ALTER TABLE statement_sets
    ADD COLUMN stored_bytes bigint NOT NULL DEFAULT 0 CHECK (stored_bytes >= 0);

UPDATE statement_sets
   SET stored_bytes = octet_length(borrower_name) + octet_length(origin::text) + octet_length(statements::text);

INSERT INTO document_usage (owner_id, statement_sets, bytes)
SELECT owner_id, count(*), sum(stored_bytes)
  FROM statement_sets
 GROUP BY owner_id
    ON CONFLICT (owner_id) DO UPDATE
   SET statement_sets = EXCLUDED.statement_sets,
       bytes = document_usage.bytes + EXCLUDED.bytes;

CREATE TABLE deletions (
    seq         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind        text NOT NULL CHECK (kind IN ('document', 'statement_set')),
    record_id   text NOT NULL,
    owner_id    uuid NOT NULL,
    deleted_by  uuid NOT NULL,
    deleted_at  timestamptz NOT NULL,
    freed_documents      bigint NOT NULL CHECK (freed_documents >= 0),
    freed_statement_sets bigint NOT NULL CHECK (freed_statement_sets >= 0),
    freed_bytes          bigint NOT NULL CHECK (freed_bytes >= 0),
    summary     jsonb NOT NULL
);
