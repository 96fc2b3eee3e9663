-- Every open run proves it is alive, and the assistant never narrates the same findings twice.
--
-- job_runs.alive_until: a run that is still 'running' pushes this forward on a heartbeat (every third of its lease)
-- while its process lives. Once it is in the past, the process is gone without closing its row (SIGKILL, a lost
-- machine): the next run of any kind marks the row 'abandoned', counting what it had committed.
ALTER TABLE job_runs ADD COLUMN alive_until TIMESTAMPTZ;
CREATE INDEX idx_job_runs_running ON job_runs(alive_until) WHERE status = 'running';

-- proactive_users.narrated_digest: the digest of the open findings (kind, subject, fingerprint) the user's last
-- successful assistant run started from. A pass whose findings have the same digest runs no model for the user.
-- narrating_owner / narrating_until / narrating_digest: a claim on the user's assistant run, so two concurrent
-- passes never run the model for the same user at once.
ALTER TABLE proactive_users
  ADD COLUMN narrated_digest TEXT,
  ADD COLUMN narrated_run_id UUID REFERENCES job_runs(id) ON DELETE SET NULL,
  ADD COLUMN narrating_owner TEXT,
  ADD COLUMN narrating_until TIMESTAMPTZ,
  ADD COLUMN narrating_digest TEXT;
