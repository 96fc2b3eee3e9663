-- Tables this service owns for its own bookkeeping. Times are timestamptz everywhere.

-- One row per job run (extract, scan, assist, eval, worker request, batch).
CREATE TABLE job_runs (
  id UUID PRIMARY KEY DEFAULT gen_random_uuid(),
  kind TEXT NOT NULL CHECK (kind IN ('extract', 'scan', 'assist', 'eval', 'worker', 'batch')),
  started_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  finished_at TIMESTAMPTZ,
  status TEXT NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'succeeded', 'failed', 'partial')),
  provider TEXT,
  model TEXT,
  options JSONB NOT NULL DEFAULT '{}'::jsonb,
  conversations_processed INTEGER NOT NULL DEFAULT 0,
  conversations_failed INTEGER NOT NULL DEFAULT 0,
  item_counts JSONB NOT NULL DEFAULT '{}'::jsonb,      -- {"calendar_events": 3, ...}
  requests INTEGER NOT NULL DEFAULT 0,
  prompt_tokens BIGINT NOT NULL DEFAULT 0,
  completion_tokens BIGINT NOT NULL DEFAULT 0,
  cached_prompt_tokens BIGINT NOT NULL DEFAULT 0,
  estimated_cost_usd NUMERIC(12, 6),
  error TEXT,
  CHECK (finished_at IS NULL OR finished_at >= started_at)
);
CREATE INDEX idx_job_runs_kind_started ON job_runs(kind, started_at DESC);

-- How far the nightly scan has read each conversation: (last_message_at, last_message_id) orders messages
-- totally even when two share a timestamp. Lease columns let several scanners share work safely.
CREATE TABLE scan_watermarks (
  conversation_id UUID PRIMARY KEY REFERENCES conversations(id) ON DELETE CASCADE,
  last_message_at TIMESTAMPTZ,
  last_message_id UUID,
  scanned_at TIMESTAMPTZ,
  run_id UUID REFERENCES job_runs(id) ON DELETE SET NULL,
  lease_owner TEXT,
  lease_expires_at TIMESTAMPTZ,
  failures INTEGER NOT NULL DEFAULT 0,
  last_error TEXT
);

-- The agent's steps, one row each, for debugging and cost accounting.
CREATE TABLE agent_traces (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  run_id UUID NOT NULL REFERENCES job_runs(id) ON DELETE CASCADE,
  user_id UUID REFERENCES users(id) ON DELETE CASCADE,
  step INTEGER NOT NULL CHECK (step >= 0),
  request_summary JSONB NOT NULL,
  tool_calls JSONB NOT NULL DEFAULT '[]'::jsonb,
  finish_reason TEXT,
  prompt_tokens INTEGER NOT NULL DEFAULT 0,
  completion_tokens INTEGER NOT NULL DEFAULT 0,
  latency_ms INTEGER NOT NULL DEFAULT 0,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  UNIQUE (run_id, user_id, step)
);

-- Per-user settings this service needs, kept out of the app's `users` table. Missing row = UTC.
CREATE TABLE user_settings (
  user_id UUID PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  time_zone TEXT NOT NULL DEFAULT 'UTC',
  updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
