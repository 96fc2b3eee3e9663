-- Operators retry and cancel requests with `messageai-jobs requests retry|cancel` instead of editing job_requests by
-- hand. A request can now be 'cancelled' (the worker never claims it; one holding it loses its lease and changes
-- nothing). Every retry and cancel leaves a row in job_request_events with what the request was before (status,
-- attempts, error), so resetting a failed request never loses its error history.
ALTER TABLE job_requests DROP CONSTRAINT IF EXISTS job_requests_status_check;
ALTER TABLE job_requests ADD CONSTRAINT job_requests_status_check
  CHECK (status IN ('pending', 'running', 'done', 'failed', 'cancelled'));
-- How many times an operator sent the request back to pending, and when last.
ALTER TABLE job_requests
  ADD COLUMN IF NOT EXISTS retries INTEGER NOT NULL DEFAULT 0,
  ADD COLUMN IF NOT EXISTS retried_at TIMESTAMPTZ;

CREATE TABLE job_request_events (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  request_id BIGINT NOT NULL REFERENCES job_requests(id) ON DELETE CASCADE,
  action TEXT NOT NULL CHECK (action IN ('retry', 'cancel')),
  at TIMESTAMPTZ NOT NULL DEFAULT now(),
  -- The database role that did it (the operator's connection).
  actor TEXT NOT NULL DEFAULT current_user,
  previous_status TEXT NOT NULL,
  previous_attempts INTEGER NOT NULL,
  previous_error TEXT,
  previous_run_id UUID
);
CREATE INDEX idx_job_request_events_request ON job_request_events(request_id, at);

-- Service-internal, like job_runs: closed to the app's API roles.
ALTER TABLE job_request_events ENABLE ROW LEVEL SECURITY;
REVOKE ALL ON job_request_events FROM PUBLIC, anon, authenticated;
GRANT ALL ON job_request_events TO service_role;
