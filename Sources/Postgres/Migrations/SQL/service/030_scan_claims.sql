-- The scan's claims, bounded per claim and accounted for when a scanner dies.
--
-- claimed_by_run: the scan run that last claimed the conversation. A run skips the conversations it already tried
-- with `claimed_by_run IS DISTINCT FROM <run>` instead of sending their ids with every claim, so a claim costs the
-- same at the end of a night as at its start.
ALTER TABLE scan_watermarks ADD COLUMN claimed_by_run UUID;

-- heartbeat_at: when a scan last claimed work. A run still 'running' whose heartbeat is older than its lease and
-- that holds no live lease was killed (SIGKILL, a lost machine): the next scan marks it 'abandoned'.
ALTER TABLE job_runs ADD COLUMN heartbeat_at TIMESTAMPTZ;
ALTER TABLE job_runs DROP CONSTRAINT job_runs_status_check;
ALTER TABLE job_runs ADD CONSTRAINT job_runs_status_check
  CHECK (status IN ('running', 'succeeded', 'failed', 'partial', 'abandoned'));
