-- The cache keeps a bounded number of responses, dropping the oldest: an index on their age.
CREATE INDEX provider_cache_fetched_idx ON provider_cache (fetched_at DESC, key);
