-- The truth over nights (issue 46, docs/over-nights.md): every item the service shows is a tracked item of its
-- conversation under a short ref (e1, r2, t3, ...) that never changes, so a move, a re-post or another provider's
-- answer updates the item instead of adding one. The app's rows of an item are keyed by it
-- (`<feature>:<conversation>:<ref>`). Service-owned; the app reads the rows of its own tables, not this one.
CREATE TABLE IF NOT EXISTS tracked_items (
  conversation_id UUID NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  ref TEXT NOT NULL CHECK (ref ~ '^[a-z][0-9]{1,6}$'),
  feature TEXT NOT NULL,
  -- The item as it now is (ItemBody's JSON), its sources at most 5 message ids.
  item JSONB NOT NULL,
  status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'cancelled', 'ended', 'lapsed', 'not_backed')),
  closed_reason TEXT,
  -- Participants it is met for (a deadline handed in, an invitation answered).
  met_for UUID[] NOT NULL DEFAULT '{}',
  -- A priority message's last day.
  until DATE,
  origin TEXT NOT NULL DEFAULT 'service' CHECK (origin IN ('service', 'app')),
  -- The item's place in its conversation's state (the order first seen): a night's request lists open items in it.
  position INTEGER NOT NULL DEFAULT 0,
  first_seen_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  last_run_id UUID,
  PRIMARY KEY (conversation_id, ref)
);
CREATE INDEX IF NOT EXISTS idx_tracked_items_open ON tracked_items(conversation_id) WHERE status = 'open';

-- Closed, superseded or lapsed items whose row stays (the app wrote it, or the parent acted on it) say so here;
-- the app's own columns (status, dismissed, confirmed) keep meaning what the parent did.
ALTER TABLE calendar_events ADD COLUMN IF NOT EXISTS closed_at TIMESTAMPTZ;
ALTER TABLE calendar_events ADD COLUMN IF NOT EXISTS closed_reason TEXT;
ALTER TABLE decisions ADD COLUMN IF NOT EXISTS closed_at TIMESTAMPTZ;
ALTER TABLE decisions ADD COLUMN IF NOT EXISTS closed_reason TEXT;
ALTER TABLE priority_messages ADD COLUMN IF NOT EXISTS closed_at TIMESTAMPTZ;
ALTER TABLE priority_messages ADD COLUMN IF NOT EXISTS closed_reason TEXT;
ALTER TABLE rsvp_tracking ADD COLUMN IF NOT EXISTS closed_at TIMESTAMPTZ;
ALTER TABLE rsvp_tracking ADD COLUMN IF NOT EXISTS closed_reason TEXT;
ALTER TABLE deadlines ADD COLUMN IF NOT EXISTS closed_at TIMESTAMPTZ;
ALTER TABLE deadlines ADD COLUMN IF NOT EXISTS closed_reason TEXT;

ALTER TABLE tracked_items ENABLE ROW LEVEL SECURITY;
REVOKE ALL ON tracked_items FROM PUBLIC, anon, authenticated;
GRANT ALL ON tracked_items TO service_role;
