-- Newest first under a backlog (issue 35): when a conversation has more new messages than a scan reads (the read
-- cap, 2,000), the scan reads the newest of them (today's messages tonight), moves the watermark past them, and
-- records the messages it left between the old watermark and that window as a gap: (after, before), both
-- exclusive, positions as in scan_watermarks. Later scans read each gap oldest first with the room their new
-- messages leave, moving `after` on, and delete it once read; nothing is skipped and nothing read twice. A
-- conversation with a gap stays pending.
CREATE TABLE scan_backlog (
  conversation_id UUID NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  after_at TIMESTAMPTZ NOT NULL,
  after_id UUID NOT NULL,
  before_at TIMESTAMPTZ NOT NULL,
  before_id UUID NOT NULL,
  run_id UUID REFERENCES job_runs(id) ON DELETE SET NULL,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (conversation_id, after_at, after_id)
);

-- Service-internal, like scan_watermarks (006): RLS on, no policy, nothing for the app's API roles.
ALTER TABLE scan_backlog ENABLE ROW LEVEL SECURITY;
REVOKE ALL ON scan_backlog FROM PUBLIC, anon, authenticated;
GRANT ALL ON scan_backlog TO service_role;
