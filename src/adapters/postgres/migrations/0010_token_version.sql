-- Access tokens carry the token version of their user when issued; sign-out, disabling and
-- demotion move it on, so every older access token stops working at once instead of at expiry.

ALTER TABLE users ADD COLUMN token_version bigint NOT NULL DEFAULT 0;
