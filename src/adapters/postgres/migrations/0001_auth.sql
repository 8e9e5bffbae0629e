-- Users, refresh-token families and wallet nonces: the sign-in state of the service.

CREATE TABLE users (
    id             uuid PRIMARY KEY,
    -- Normalised (trimmed, lower-cased) by the domain before it gets here.
    email          text CONSTRAINT users_email_key UNIQUE,
    password_hash  text,
    role           text NOT NULL CHECK (role IN ('viewer', 'analyst', 'admin')),
    wallet_address bytea CONSTRAINT users_wallet_address_key UNIQUE CHECK (octet_length(wallet_address) = 20),
    created_at     timestamptz NOT NULL,
    disabled       boolean NOT NULL DEFAULT false,
    -- Insertion order, so listing is stable even for users created in the same microsecond.
    seq            bigint GENERATED ALWAYS AS IDENTITY,
    CHECK (email IS NOT NULL OR wallet_address IS NOT NULL)
);
CREATE INDEX users_seq_idx ON users (seq);

-- One row per issued refresh token; only its SHA-256 is kept. A family is one sign-in and every
-- token rotated from it. No foreign key to users: users are disabled, never deleted.
CREATE TABLE refresh_tokens (
    token_hash text PRIMARY KEY,
    jti        uuid NOT NULL,
    family_id  uuid NOT NULL,
    user_id    uuid NOT NULL,
    issued_at  timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    used_at    timestamptz,
    revoked_at timestamptz
);
CREATE INDEX refresh_tokens_family_idx ON refresh_tokens (family_id);
CREATE INDEX refresh_tokens_user_idx ON refresh_tokens (user_id) WHERE revoked_at IS NULL;
CREATE INDEX refresh_tokens_expiry_idx ON refresh_tokens (expires_at);

CREATE TABLE wallet_nonces (
    nonce          text PRIMARY KEY,
    wallet_address bytea NOT NULL CHECK (octet_length(wallet_address) = 20),
    issued_at      timestamptz NOT NULL,
    expires_at     timestamptz NOT NULL,
    used           boolean NOT NULL DEFAULT false
);
CREATE INDEX wallet_nonces_expiry_idx ON wallet_nonces (expires_at);
