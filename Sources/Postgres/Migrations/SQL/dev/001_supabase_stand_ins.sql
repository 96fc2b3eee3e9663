-- What a Supabase project has before the app's schema runs, for a local database only (never run on Supabase):
-- the `auth` schema with `auth.users` and `auth.uid()`, the API roles, and uuid-ossp in the `extensions` schema.
-- PostgREST runs a signed-in request as `SET ROLE authenticated` with `request.jwt.claim.sub` set to the user's
-- id; tests do the same.

-- Roles are cluster-wide: several databases (parallel test runs) may create them at the same moment, so a
-- duplicate is not an error.
DO $$
DECLARE
  name TEXT;
BEGIN
  FOREACH name IN ARRAY ARRAY['anon', 'authenticated', 'service_role'] LOOP
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = name) THEN
      BEGIN
        EXECUTE format('CREATE ROLE %I NOLOGIN NOINHERIT', name);
      EXCEPTION WHEN duplicate_object OR unique_violation THEN
        NULL;  -- created by a concurrent migration
      END;
    END IF;
  END LOOP;
END
$$;
-- On Supabase the service role bypasses row level security (the jobs' own connection does too).
DO $$
BEGIN
  ALTER ROLE service_role BYPASSRLS;
EXCEPTION WHEN insufficient_privilege THEN
  RAISE NOTICE 'could not give service_role BYPASSRLS (needs a superuser); the jobs do not use it';
END
$$;

CREATE SCHEMA IF NOT EXISTS auth;
CREATE SCHEMA IF NOT EXISTS extensions;

CREATE TABLE IF NOT EXISTS auth.users (
  id UUID PRIMARY KEY,
  email TEXT,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- The signed-in user's id, as Supabase defines it (NULL for anon and for the jobs' own connection).
CREATE OR REPLACE FUNCTION auth.uid() RETURNS UUID
LANGUAGE sql STABLE AS $$
  SELECT nullif(current_setting('request.jwt.claim.sub', true), '')::uuid
$$;

-- Supabase installs uuid-ossp in `extensions` and puts that schema on every role's search_path.
CREATE EXTENSION IF NOT EXISTS "uuid-ossp" WITH SCHEMA extensions;

GRANT USAGE ON SCHEMA auth, extensions TO anon, authenticated, service_role;
DO $$
BEGIN
  EXECUTE format('GRANT USAGE ON SCHEMA %I TO anon, authenticated, service_role', current_schema());
  -- New sessions find uuid_generate_v4() as on Supabase (a connection's own search_path still wins).
  EXECUTE format('ALTER DATABASE %I SET search_path = "$user", public, extensions', current_database());
END
$$;
