-- Which prompts a run used: [{"id": "calendar_events", "version": 1, "sha256": "..."}], the hash over everything the
-- prompt sends besides the conversation. Two runs of calendar_events@1 whose text differs no longer look the same.
-- Existing rows get an empty list (their prompts were not recorded); nothing else changes.
ALTER TABLE job_runs ADD COLUMN IF NOT EXISTS prompts JSONB NOT NULL DEFAULT '[]'::jsonb;
ALTER TABLE assistant_runs ADD COLUMN IF NOT EXISTS prompts JSONB NOT NULL DEFAULT '[]'::jsonb;
