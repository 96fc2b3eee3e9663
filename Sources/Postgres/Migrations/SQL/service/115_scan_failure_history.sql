-- The last failures of each conversation, newest first, so an operator can read why a conversation is in quarantine
-- (`messageai-jobs quarantine show ID`) without SQL: each entry is {"at", "run_id", "error", "signature"} (signature
-- null for an outage, which never counts toward quarantine). `scan` keeps the last five; a successful scan leaves
-- them (the history stays readable after a release).
ALTER TABLE scan_watermarks ADD COLUMN IF NOT EXISTS recent_failures JSONB NOT NULL DEFAULT '[]'::jsonb;
-- scan_watermarks keeps the row level security and grants of 006 (service-internal); new columns inherit them.
