-- The proactive pass (issue 16). Findings become one row per user, kind and subject, kept up to date night after
-- night, instead of one row per assistant run.
--
-- The old per-run table keeps its rows under the name that says what they are: one LLM run's summary for a
-- user (assistant_runs). Nothing is dropped or rewritten; new columns record the run's tokens and what the
-- checker dropped from the model's answer.
ALTER TABLE assistant_findings RENAME TO assistant_runs;
ALTER INDEX idx_assistant_findings_user RENAME TO idx_assistant_runs_user;
ALTER TABLE assistant_runs
  ADD COLUMN prompt_tokens INTEGER NOT NULL DEFAULT 0,
  ADD COLUMN completion_tokens INTEGER NOT NULL DEFAULT 0,
  ADD COLUMN findings_in INTEGER NOT NULL DEFAULT 0,
  ADD COLUMN dropped JSONB NOT NULL DEFAULT '[]'::jsonb;

-- What needs a parent's attention, computed by code (no LLM): a schedule conflict, an unanswered RSVP, a deadline
-- in the next days, a reminder coming due. `subject_key` names what the finding is about (e.g. the two events of a
-- conflict); `fingerprint` hashes the facts it rests on (their dates, times, places). The app may set `dismissed`;
-- a dismissed finding stays dismissed until its fingerprint changes (the subject changed: an event moved).
CREATE TABLE assistant_findings (
  id UUID PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id UUID NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  kind TEXT NOT NULL CHECK (kind IN ('conflict', 'rsvp', 'deadline', 'reminder')),
  subject_key TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved')),
  dismissed BOOLEAN NOT NULL DEFAULT FALSE,
  severity TEXT NOT NULL CHECK (severity IN ('high', 'medium', 'low')),
  -- When it matters: the conflict's start, the RSVP's reply-by (or event) day, the deadline, the reminder.
  due_at TIMESTAMPTZ,
  title TEXT NOT NULL,
  -- The code's plain suggestion (a template); always present, with or without an LLM.
  suggestion TEXT NOT NULL,
  -- The assistant's judgment when an LLM ran: its explanation and options, and its rank among the user's findings.
  explanation TEXT,
  rank INTEGER,
  -- The rows the finding rests on: [{"table": "calendar_events", "id": "..."}, ...].
  cites JSONB NOT NULL DEFAULT '[]'::jsonb,
  details JSONB NOT NULL DEFAULT '{}'::jsonb,
  first_run_id UUID REFERENCES job_runs(id) ON DELETE SET NULL,
  last_run_id UUID REFERENCES job_runs(id) ON DELETE SET NULL,
  first_seen_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  last_seen_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  resolved_at TIMESTAMPTZ,
  updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  UNIQUE (user_id, kind, subject_key)
);
CREATE INDEX idx_assistant_findings_open ON assistant_findings(user_id, due_at) WHERE status = 'open' AND NOT dismissed;

-- The proactive pass's work queue, one row per user: when the pass last looked at the user, and a lease so
-- several pods share the users the way scan_watermarks shares conversations.
CREATE TABLE proactive_users (
  user_id UUID PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  last_pass_at TIMESTAMPTZ,
  last_run_id UUID REFERENCES job_runs(id) ON DELETE SET NULL,
  lease_owner TEXT,
  lease_expires_at TIMESTAMPTZ,
  failures INTEGER NOT NULL DEFAULT 0,
  last_error TEXT
);

-- Row level security and grants, as in 006: every grant is revoked first and given back explicitly, so the result is
-- the same whether the project's default privileges grant new tables to the API roles or not. A signed-in user reads
-- her own findings and may set `dismissed` on them; `assistant_runs` keeps the policy and grant it had as the old
-- `assistant_findings` (she reads her own); `proactive_users` is the service's own. Nothing for anon.
ALTER TABLE assistant_findings ENABLE ROW LEVEL SECURITY;
ALTER TABLE proactive_users ENABLE ROW LEVEL SECURITY;
CREATE POLICY "Users can view own findings" ON assistant_findings
  FOR SELECT TO authenticated USING (user_id = auth.uid());
CREATE POLICY "Users can dismiss own findings" ON assistant_findings
  FOR UPDATE TO authenticated USING (user_id = auth.uid()) WITH CHECK (user_id = auth.uid());
REVOKE ALL ON assistant_findings, proactive_users FROM PUBLIC, anon, authenticated;
GRANT SELECT, UPDATE (dismissed) ON assistant_findings TO authenticated;
GRANT ALL ON assistant_findings, proactive_users TO service_role;
