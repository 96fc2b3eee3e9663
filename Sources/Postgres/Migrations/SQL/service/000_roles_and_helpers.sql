-- Roles and helper functions the service's row level security uses. On Supabase the roles exist already; on a
-- plain PostgreSQL they are created NOLOGIN (nobody can sign in as them), so the same policies apply everywhere.
DO $$
DECLARE
  name TEXT;
BEGIN
  FOREACH name IN ARRAY ARRAY['anon', 'authenticated', 'service_role'] LOOP
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = name) THEN
      BEGIN
        EXECUTE format('CREATE ROLE %I NOLOGIN NOINHERIT', name);
      EXCEPTION WHEN duplicate_object OR unique_violation THEN
        NULL;  -- roles are cluster-wide: a migration of another database created it at the same moment
      END;
    END IF;
  END LOOP;
END
$$;

-- auth.uid() is Supabase's; a database without it (plain PostgreSQL) gets the same definition.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = 'auth') THEN
    CREATE SCHEMA auth;
  END IF;
  IF to_regprocedure('auth.uid()') IS NULL THEN
    CREATE FUNCTION auth.uid() RETURNS UUID LANGUAGE sql STABLE AS
      'SELECT nullif(current_setting(''request.jwt.claim.sub'', true), '''')::uuid';
  END IF;
END
$$;

-- Is the signed-in user a participant of this conversation? SECURITY DEFINER, so the answer does not go through
-- conversation_participants' own policies (the PRD's recurse). The service's policies use it, so they work
-- whether or not the app has fixed its policies.
CREATE FUNCTION messageai_is_member(conversation UUID) RETURNS BOOLEAN
LANGUAGE sql STABLE SECURITY DEFINER AS $$
  SELECT EXISTS (
    SELECT 1 FROM conversation_participants
    WHERE conversation_id = conversation AND user_id = auth.uid()
  )
$$;

-- May the signed-in user see this message (is she in its conversation)?
CREATE FUNCTION messageai_can_see_message(message UUID) RETURNS BOOLEAN
LANGUAGE sql STABLE SECURITY DEFINER AS $$
  SELECT EXISTS (
    SELECT 1 FROM messages m JOIN conversation_participants p ON p.conversation_id = m.conversation_id
    WHERE m.id = message AND p.user_id = auth.uid()
  )
$$;

-- A SECURITY DEFINER function must not resolve names through the caller's search_path.
DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION messageai_is_member(UUID) SET search_path = %I, pg_temp', current_schema());
  EXECUTE format('ALTER FUNCTION messageai_can_see_message(UUID) SET search_path = %I, pg_temp', current_schema());
END
$$;
REVOKE ALL ON FUNCTION messageai_is_member(UUID), messageai_can_see_message(UUID) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION messageai_is_member(UUID), messageai_can_see_message(UUID) TO authenticated, service_role;

-- The app stores its times as TIMESTAMP without time zone, written in UTC (PRD section 7); a deployment may
-- have TIMESTAMPTZ instead. messageai_utc(column) is the instant either way, never read through the session's
-- TimeZone, so the service's comparisons hold on both shapes.
CREATE FUNCTION messageai_utc(value TIMESTAMP) RETURNS TIMESTAMPTZ
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$ SELECT value AT TIME ZONE 'UTC' $$;
CREATE FUNCTION messageai_utc(value TIMESTAMPTZ) RETURNS TIMESTAMPTZ
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$ SELECT value $$;
