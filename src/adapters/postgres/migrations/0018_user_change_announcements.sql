-- Every change to a user row is announced on channel creditflow_users with the user's id, when
-- its transaction commits (a rolled-back change announces nothing). Each instance of the service
-- listens and drops its cached copy of that user at once, so sign-out, disabling and demotion
-- take effect on every instance, and so does a change made by hand or by a future code path.
-- Inserts are not announced: instances cache only users they have read, never an absence.
-- TRUNCATE announces '*': every cached user is dropped.

CREATE FUNCTION creditflow_announce_user_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        PERFORM pg_notify('creditflow_users', '*');
        RETURN NULL;
    END IF;
    PERFORM pg_notify('creditflow_users', OLD.id::text);
    IF TG_OP = 'UPDATE' AND NEW.id IS DISTINCT FROM OLD.id THEN
        PERFORM pg_notify('creditflow_users', NEW.id::text);
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER users_announce_change AFTER UPDATE OR DELETE ON users
    FOR EACH ROW EXECUTE FUNCTION creditflow_announce_user_change();
CREATE TRIGGER users_announce_truncate AFTER TRUNCATE ON users
    FOR EACH STATEMENT EXECUTE FUNCTION creditflow_announce_user_change();
