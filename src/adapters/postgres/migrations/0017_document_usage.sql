-- Each owner's document count and stored bytes, kept up to date in the transaction of every document
-- write, so that admitting a write under the quota reads one row instead of summing all of the
-- owner's versions (which grew with every document: measured by the soak in docs/BENCHMARKS.md).
-- The row is also the lock that serialises one owner's concurrent writes.

CREATE TABLE document_usage (
    owner_id  uuid PRIMARY KEY,
    documents bigint NOT NULL DEFAULT 0 CHECK (documents >= 0),
    bytes     bigint NOT NULL DEFAULT 0 CHECK (bytes >= 0)
);

INSERT INTO document_usage (owner_id, documents, bytes)
SELECT d.owner_id,
       count(DISTINCT d.id),
       coalesce(sum(octet_length(v.text) + coalesce(v.original_size, 0)), 0)
  FROM documents d
  LEFT JOIN document_versions v ON v.document_id = d.id
 GROUP BY d.owner_id;
