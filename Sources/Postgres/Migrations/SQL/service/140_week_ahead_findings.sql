-- The proactive assistant, round two (issue 49): the week ahead. An urgent or high priority message of today or
-- tomorrow that nothing else raises (no deadline or RSVP of the user rests on it) becomes a finding of its own,
-- kind 'priority', citing the priority_messages row; the assistant's answer gains a list for them, kept beside the
-- other lists in assistant_runs.
ALTER TABLE assistant_findings DROP CONSTRAINT IF EXISTS assistant_findings_kind_check;
ALTER TABLE assistant_findings ADD CONSTRAINT assistant_findings_kind_check
  CHECK (kind IN ('conflict', 'rsvp', 'deadline', 'reminder', 'priority'));
ALTER TABLE assistant_runs ADD COLUMN IF NOT EXISTS priority_messages JSONB NOT NULL DEFAULT '[]'::jsonb;
