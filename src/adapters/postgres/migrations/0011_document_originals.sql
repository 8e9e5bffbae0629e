-- Uploaded files: each version read from a file records the file's type, size and hash and where
-- the text's pages start; the bytes themselves live apart, so listing versions never reads them.

ALTER TABLE document_versions
    ADD COLUMN page_starts         bigint[] NOT NULL DEFAULT '{}',
    ADD COLUMN original_media_type text,
    ADD COLUMN original_size       bigint CHECK (original_size >= 0),
    ADD COLUMN original_sha256     text,
    ADD CHECK ((original_media_type IS NULL) = (original_size IS NULL)
               AND (original_size IS NULL) = (original_sha256 IS NULL));

CREATE TABLE document_originals (
    document_id bigint NOT NULL,
    version     integer NOT NULL,
    content     bytea NOT NULL,
    PRIMARY KEY (document_id, version),
    FOREIGN KEY (document_id, version) REFERENCES document_versions (document_id, version) ON DELETE CASCADE
);
