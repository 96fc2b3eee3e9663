-- What made each run: the binary's version and git commit, and the SHA-256 of the prompt set it used (the hash
-- `messageai-jobs --version` and `prompts list` print). Nullable: rows written before this migration have none,
-- and a run that uses no prompts (the rule-based proactive pass) records no prompt hash.
ALTER TABLE job_runs
  ADD COLUMN IF NOT EXISTS build_version TEXT,
  ADD COLUMN IF NOT EXISTS build_commit TEXT,
  ADD COLUMN IF NOT EXISTS prompt_set_sha256 TEXT;
