-- Edits and deletions (issue 46, docs/over-nights.md phase 2 point 3): a message edited (`updated_at`) or soft-deleted
-- (`deleted_at`) after a conversation was last read is read again at its next scan. `read_at` is the database's clock
-- when that read happened, not when its rows were committed (`scanned_at`, after the model answered): an edit made
-- while the model worked is after the read, so it is not lost. NULL for a conversation not read since this migration:
-- `scanned_at` stands in for it. scan_watermarks keeps the row level security and grants of 006 (service-internal).
ALTER TABLE scan_watermarks ADD COLUMN IF NOT EXISTS read_at TIMESTAMPTZ;
