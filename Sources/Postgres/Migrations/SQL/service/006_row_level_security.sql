-- Row level security and grants on every table the service creates (the AI tables it creates get theirs in 002).
-- Grants decide whether a role reaches a table at all, policies which rows. Since 2026-10-30 Supabase no longer
-- grants new tables to anon / authenticated / service_role by default, while older projects' default privileges
-- still grant them everything: so every grant is revoked first and given back explicitly, the same under both.
-- The jobs connect as a role that bypasses RLS (the table owner, e.g. `postgres`), never as these roles.

-- Service-internal tables: closed to the app's API roles. RLS without policies denies every row even if a
-- grant comes back later.
DO $$
DECLARE
  t TEXT;
BEGIN
  FOREACH t IN ARRAY ARRAY['job_runs', 'scan_watermarks', 'agent_traces', 'llm_batches', 'llm_batch_conversations',
                           'llm_batch_items', 'messageai_migrations'] LOOP
    EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
    EXECUTE format('REVOKE ALL ON %I FROM PUBLIC, anon, authenticated', t);
    EXECUTE format('GRANT ALL ON %I TO service_role', t);
  END LOOP;
END
$$;

-- user_settings: a signed-in user reads and sets only her own row (her time zone).
ALTER TABLE user_settings ENABLE ROW LEVEL SECURITY;
CREATE POLICY "Users can view own settings" ON user_settings
  FOR SELECT TO authenticated USING (user_id = auth.uid());
CREATE POLICY "Users can create own settings" ON user_settings
  FOR INSERT TO authenticated WITH CHECK (user_id = auth.uid());
CREATE POLICY "Users can update own settings" ON user_settings
  FOR UPDATE TO authenticated USING (user_id = auth.uid()) WITH CHECK (user_id = auth.uid());
REVOKE ALL ON user_settings FROM PUBLIC, anon, authenticated;
-- UPDATE of user_id too: PostgREST's upsert sets every column it inserts (the policy keeps it her own id).
GRANT SELECT, INSERT (user_id, time_zone), UPDATE (user_id, time_zone) ON user_settings TO authenticated;
GRANT ALL ON user_settings TO service_role;

-- A zone PostgreSQL does not know would make every date of that user fail later; refuse it when written.
CREATE FUNCTION user_settings_check_time_zone() RETURNS TRIGGER
LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_timezone_names WHERE name = NEW.time_zone) THEN
    RAISE EXCEPTION 'user_settings.time_zone ''%'' is not an IANA time zone name (e.g. America/New_York)', NEW.time_zone
      USING ERRCODE = 'check_violation';
  END IF;
  NEW.updated_at := now();
  RETURN NEW;
END
$$;
CREATE TRIGGER user_settings_check_time_zone
  BEFORE INSERT OR UPDATE OF time_zone ON user_settings
  FOR EACH ROW EXECUTE FUNCTION user_settings_check_time_zone();

-- assistant_findings: what the assistant found for a user, for her eyes only; the app only reads it.
ALTER TABLE assistant_findings ENABLE ROW LEVEL SECURITY;
CREATE POLICY "Users can view own findings" ON assistant_findings
  FOR SELECT TO authenticated USING (user_id = auth.uid());
REVOKE ALL ON assistant_findings FROM PUBLIC, anon, authenticated;
GRANT SELECT ON assistant_findings TO authenticated;
GRANT ALL ON assistant_findings TO service_role;

-- job_requests: a signed-in user enqueues work for herself (assist) or for a conversation she is in (extract),
-- and sees those requests. She sets only kind, conversation_id and user_id; the worker owns the rest.
ALTER TABLE job_requests ENABLE ROW LEVEL SECURITY;
CREATE POLICY "Users can request work for themselves and their conversations" ON job_requests
  FOR INSERT TO authenticated WITH CHECK (
    (kind = 'assist' AND user_id = auth.uid() AND conversation_id IS NULL)
    OR (kind = 'extract' AND messageai_is_member(conversation_id) AND (user_id IS NULL OR user_id = auth.uid()))
  );
CREATE POLICY "Users can view own requests" ON job_requests
  FOR SELECT TO authenticated USING (
    user_id = auth.uid() OR (kind = 'extract' AND messageai_is_member(conversation_id))
  );
REVOKE ALL ON job_requests FROM PUBLIC, anon, authenticated;
GRANT SELECT, INSERT (kind, conversation_id, user_id) ON job_requests TO authenticated;
GRANT ALL ON job_requests TO service_role;

-- Functions: only what policies call is executable by the API roles.
REVOKE ALL ON FUNCTION job_requests_notify(), user_settings_check_time_zone() FROM PUBLIC;
