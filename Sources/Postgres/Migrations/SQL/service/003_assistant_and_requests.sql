-- What the proactive assistant found for a user, for the app to show. One row per user and run; the app
-- reads the newest. Reminders it created live in `reminders` (created_by = 'ai', origin = 'assistant').
CREATE TABLE assistant_findings (
  id UUID PRIMARY KEY DEFAULT gen_random_uuid(),
  run_id UUID NOT NULL REFERENCES job_runs(id) ON DELETE CASCADE,
  user_id UUID NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  summary TEXT NOT NULL,
  conflicts JSONB NOT NULL DEFAULT '[]'::jsonb,
  pending_rsvps JSONB NOT NULL DEFAULT '[]'::jsonb,
  near_deadlines JSONB NOT NULL DEFAULT '[]'::jsonb,
  suggested_actions JSONB NOT NULL DEFAULT '[]'::jsonb,
  reminders_created INTEGER NOT NULL DEFAULT 0,
  stop_reason TEXT NOT NULL,
  steps INTEGER NOT NULL DEFAULT 0,
  prompt_id TEXT NOT NULL,
  prompt_version INTEGER NOT NULL,
  model TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  UNIQUE (run_id, user_id)
);
CREATE INDEX idx_assistant_findings_user ON assistant_findings(user_id, created_at DESC);

-- On-demand work the app asks for (the worker serves it): extract a conversation, or assist a user.
CREATE TABLE job_requests (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('extract', 'assist')),
  conversation_id UUID REFERENCES conversations(id) ON DELETE CASCADE,
  user_id UUID REFERENCES users(id) ON DELETE CASCADE,
  status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'done', 'failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  not_before TIMESTAMPTZ NOT NULL DEFAULT now(),
  lease_owner TEXT,
  lease_expires_at TIMESTAMPTZ,
  run_id UUID REFERENCES job_runs(id) ON DELETE SET NULL,
  error TEXT,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  finished_at TIMESTAMPTZ,
  CHECK ((kind = 'extract' AND conversation_id IS NOT NULL) OR (kind = 'assist' AND user_id IS NOT NULL))
);
CREATE INDEX idx_job_requests_pending ON job_requests(status, not_before) WHERE status IN ('pending', 'running');
