-- Quarantine for conversations that fail the same way night after night (a poison conversation).
--
-- failure_signature: what the last failure that can repeat was (e.g. a constraint violation, a model answer that
-- never fits the schema), without ids or numbers; failures that pass on their own (the database or the model away, a
-- lock or statement timeout) leave it and same_failures alone. same_failures: how many scans in a row failed with that
-- signature. At `scan --quarantine-after` (default 3) the conversation is quarantined: quarantined_at and
-- quarantine_reason (the error) are set, scans pass it over, and the rest of the night goes on. It leaves quarantine
-- when an operator runs `scan --retry-quarantined` (or sets quarantined_at to NULL); a successful scan of it resets
-- all four columns. The operator's list:
--   SELECT conversation_id, quarantined_at, same_failures, quarantine_reason FROM scan_watermarks
--   WHERE quarantined_at IS NOT NULL ORDER BY quarantined_at;
ALTER TABLE scan_watermarks
  ADD COLUMN failure_signature TEXT,
  ADD COLUMN same_failures INTEGER NOT NULL DEFAULT 0,
  ADD COLUMN quarantined_at TIMESTAMPTZ,
  ADD COLUMN quarantine_reason TEXT;
CREATE INDEX idx_scan_watermarks_quarantined ON scan_watermarks(quarantined_at) WHERE quarantined_at IS NOT NULL;
-- scan_watermarks keeps the row level security and grants of 006 (service-internal: RLS on, nothing for anon or
-- authenticated); new columns inherit them.
