-- The scan's claim order: least recently attempted first (issue 47).
--
-- attempted_at: when a scan last finished working on the conversation, scanned or failed ('-infinity' before its
-- first attempt). Claims go in (attempted_at, conversation_id) order, so a conversation that failed last night comes
-- after the ones no scan has tried since, and a night the scan stopped early (an outage) is followed by one that starts
-- with the conversations it did not reach: the same failures are not claimed first every night. A conversation given
-- back untouched (an outage, a shutdown) keeps its place.
ALTER TABLE scan_watermarks ADD COLUMN attempted_at TIMESTAMPTZ NOT NULL DEFAULT '-infinity';
UPDATE scan_watermarks SET attempted_at = scanned_at WHERE scanned_at IS NOT NULL;
CREATE INDEX idx_scan_watermarks_claim_order ON scan_watermarks(attempted_at, conversation_id);
-- scan_watermarks keeps the row level security and grants of 006 (service-internal); new columns inherit them.
