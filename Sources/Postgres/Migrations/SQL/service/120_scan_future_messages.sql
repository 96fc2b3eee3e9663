-- A message dated in the future cannot move a watermark past now (issue 35).
--
-- A member can write any created_at (row level security lets her insert her messages). The scan reads a message
-- dated after the moment it reads it as of that moment (the watermark never goes past now) and records it here, so
-- the message is read once and every later message is still new. Nothing of the app's rows is changed.
CREATE TABLE scan_future_messages (
  conversation_id UUID NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  message_id UUID NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
  -- The database's clock when the scan read it: the time it was scanned as.
  scanned_as TIMESTAMPTZ NOT NULL,
  run_id UUID REFERENCES job_runs(id) ON DELETE SET NULL,
  PRIMARY KEY (conversation_id, message_id)
);
CREATE INDEX idx_scan_future_messages_message ON scan_future_messages(message_id);

-- Service-internal, like scan_watermarks (006): RLS on, no policy, nothing for the app's API roles.
ALTER TABLE scan_future_messages ENABLE ROW LEVEL SECURITY;
REVOKE ALL ON scan_future_messages FROM PUBLIC, anon, authenticated;
GRANT ALL ON scan_future_messages TO service_role;

-- Repair: a watermark a future-dated message already pushed ahead of now goes back to when that scan ran (every
-- message stored before it had been read), and the message that pushed it is recorded as read. Messages dated after
-- that scan are read by the next one: the ones it stalled.
INSERT INTO scan_future_messages (conversation_id, message_id, scanned_as, run_id)
SELECT w.conversation_id, w.last_message_id, w.scanned_at, w.run_id
FROM scan_watermarks w JOIN messages m ON m.id = w.last_message_id AND m.conversation_id = w.conversation_id
WHERE w.last_message_at > now() AND w.scanned_at IS NOT NULL
ON CONFLICT DO NOTHING;
UPDATE scan_watermarks SET last_message_at = scanned_at, last_message_id = '00000000-0000-0000-0000-000000000000'
WHERE last_message_at > now() AND scanned_at IS NOT NULL;
