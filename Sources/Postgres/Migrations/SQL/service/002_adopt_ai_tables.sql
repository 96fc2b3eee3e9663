-- The app's six AI tables (MessageAI PRD section 7), adopted as they are or created in that shape.
--
-- A table the app already has keeps its rows, constraints, values, policies and grants (UNIQUE(message_id,
-- user_id) on rsvp_tracking, created_by 'ai', status 'expired', rows written by the PRD's Edge Functions). The
-- service adds nullable columns of its own (the app's writes leave them out), unique indexes on them (NULLs are
-- distinct, so rows without an idempotency key stay valid), and backfills what the app's rows imply.
-- A table the app does not have is created in the PRD's shape plus the same columns, with row level security:
-- the PRD's policies, UPDATE of the columns users own, and explicit grants (Supabase no longer grants new tables
-- to anon and authenticated by default; the grants below are the same under either default).
--
-- Service columns: idempotency_key (the item's identity: a re-run updates its row), item_key (one item shared by
-- several users), source_message_ids, date_phrase / model_date (where the date came from), and provenance
-- (run_id, prompt_id, prompt_version, model). created_at stays the app's; updated_at is the service's.

SET LOCAL client_min_messages = warning;  -- "column already exists, skipping" is the normal case here

-- 1. (service/000_check_app_tables.sql has refused, before anything was applied, a table whose columns the
--    service cannot use.)

-- 2. Create what is missing, in the PRD's shape, with row level security and grants.
DO $$
BEGIN
  IF to_regclass('calendar_events') IS NULL THEN
    CREATE TABLE calendar_events (
      id UUID PRIMARY KEY DEFAULT gen_random_uuid(),
      conversation_id UUID REFERENCES conversations(id) ON DELETE CASCADE,
      message_id UUID REFERENCES messages(id) ON DELETE CASCADE,
      title TEXT NOT NULL,
      date DATE NOT NULL,
      time TIME,
      location TEXT,
      description TEXT,
      category TEXT NOT NULL,
      confidence FLOAT NOT NULL,
      confirmed BOOLEAN DEFAULT FALSE,
      created_at TIMESTAMP DEFAULT NOW()
    );
    CREATE INDEX idx_calendar_events_conversation ON calendar_events(conversation_id);
    CREATE INDEX idx_calendar_events_date ON calendar_events(date);
    CREATE INDEX idx_calendar_events_confirmed ON calendar_events(confirmed);
    ALTER TABLE calendar_events ENABLE ROW LEVEL SECURITY;
    CREATE POLICY "Users can view calendar events in their conversations" ON calendar_events
      FOR SELECT TO authenticated USING (messageai_is_member(conversation_id));
    CREATE POLICY "Members can confirm calendar events" ON calendar_events
      FOR UPDATE TO authenticated USING (messageai_is_member(conversation_id)) WITH CHECK (messageai_is_member(conversation_id));
    REVOKE ALL ON calendar_events FROM PUBLIC, anon, authenticated;
    GRANT SELECT, UPDATE (confirmed) ON calendar_events TO authenticated;
    GRANT ALL ON calendar_events TO service_role;
  END IF;

  IF to_regclass('decisions') IS NULL THEN
    CREATE TABLE decisions (
      id UUID PRIMARY KEY DEFAULT gen_random_uuid(),
      conversation_id UUID REFERENCES conversations(id) ON DELETE CASCADE,
      message_id UUID REFERENCES messages(id) ON DELETE CASCADE,
      decision_text TEXT NOT NULL,
      category TEXT NOT NULL,
      decided_by UUID REFERENCES users(id),
      deadline DATE,
      created_at TIMESTAMP DEFAULT NOW()
    );
    CREATE INDEX idx_decisions_conversation ON decisions(conversation_id);
    CREATE INDEX idx_decisions_deadline ON decisions(deadline);
    ALTER TABLE decisions ENABLE ROW LEVEL SECURITY;
    CREATE POLICY "Users can view decisions in their conversations" ON decisions
      FOR SELECT TO authenticated USING (messageai_is_member(conversation_id));
    REVOKE ALL ON decisions FROM PUBLIC, anon, authenticated;
    GRANT SELECT ON decisions TO authenticated;
    GRANT ALL ON decisions TO service_role;
  END IF;

  IF to_regclass('priority_messages') IS NULL THEN
    CREATE TABLE priority_messages (
      message_id UUID PRIMARY KEY REFERENCES messages(id) ON DELETE CASCADE,
      priority TEXT NOT NULL,
      reason TEXT NOT NULL,
      action_required BOOLEAN DEFAULT FALSE,
      dismissed BOOLEAN DEFAULT FALSE,
      created_at TIMESTAMP DEFAULT NOW()
    );
    CREATE INDEX idx_priority_messages_priority ON priority_messages(priority);
    CREATE INDEX idx_priority_messages_dismissed ON priority_messages(dismissed);
    ALTER TABLE priority_messages ENABLE ROW LEVEL SECURITY;
    CREATE POLICY "Users can view priority messages in their conversations" ON priority_messages
      FOR SELECT TO authenticated USING (messageai_can_see_message(message_id));
    CREATE POLICY "Members can dismiss priority messages" ON priority_messages
      FOR UPDATE TO authenticated USING (messageai_can_see_message(message_id)) WITH CHECK (messageai_can_see_message(message_id));
    REVOKE ALL ON priority_messages FROM PUBLIC, anon, authenticated;
    GRANT SELECT, UPDATE (dismissed) ON priority_messages TO authenticated;
    GRANT ALL ON priority_messages TO service_role;
  END IF;

  IF to_regclass('rsvp_tracking') IS NULL THEN
    CREATE TABLE rsvp_tracking (
      id UUID PRIMARY KEY DEFAULT gen_random_uuid(),
      message_id UUID REFERENCES messages(id) ON DELETE CASCADE,
      conversation_id UUID REFERENCES conversations(id) ON DELETE CASCADE,
      user_id UUID REFERENCES users(id) ON DELETE CASCADE,
      event_name TEXT NOT NULL,
      requested_by UUID REFERENCES users(id),
      deadline DATE,
      event_date DATE NOT NULL,
      status TEXT DEFAULT 'pending',
      response TEXT,
      created_at TIMESTAMP DEFAULT NOW(),
      responded_at TIMESTAMP,
      UNIQUE(message_id, user_id)
    );
    CREATE INDEX idx_rsvp_tracking_user_status ON rsvp_tracking(user_id, status);
    CREATE INDEX idx_rsvp_tracking_deadline ON rsvp_tracking(deadline);
    ALTER TABLE rsvp_tracking ENABLE ROW LEVEL SECURITY;
    CREATE POLICY "Users can view own RSVPs" ON rsvp_tracking
      FOR SELECT TO authenticated USING (user_id = auth.uid());
    CREATE POLICY "Users can update own RSVPs" ON rsvp_tracking
      FOR UPDATE TO authenticated USING (user_id = auth.uid()) WITH CHECK (user_id = auth.uid());
    REVOKE ALL ON rsvp_tracking FROM PUBLIC, anon, authenticated;
    GRANT SELECT, UPDATE (status, response, responded_at) ON rsvp_tracking TO authenticated;
    GRANT ALL ON rsvp_tracking TO service_role;
  END IF;

  IF to_regclass('deadlines') IS NULL THEN
    CREATE TABLE deadlines (
      id UUID PRIMARY KEY DEFAULT gen_random_uuid(),
      message_id UUID REFERENCES messages(id) ON DELETE CASCADE,
      conversation_id UUID REFERENCES conversations(id) ON DELETE CASCADE,
      user_id UUID REFERENCES users(id) ON DELETE CASCADE,
      task TEXT NOT NULL,
      deadline DATE NOT NULL,
      category TEXT NOT NULL,
      priority TEXT NOT NULL,
      details TEXT,
      status TEXT DEFAULT 'pending',
      created_at TIMESTAMP DEFAULT NOW(),
      completed_at TIMESTAMP
    );
    CREATE INDEX idx_deadlines_user_status ON deadlines(user_id, status, deadline);
    ALTER TABLE deadlines ENABLE ROW LEVEL SECURITY;
    CREATE POLICY "Users can view own deadlines" ON deadlines
      FOR SELECT TO authenticated USING (user_id = auth.uid());
    CREATE POLICY "Users can complete own deadlines" ON deadlines
      FOR UPDATE TO authenticated USING (user_id = auth.uid()) WITH CHECK (user_id = auth.uid());
    REVOKE ALL ON deadlines FROM PUBLIC, anon, authenticated;
    GRANT SELECT, UPDATE (status, completed_at) ON deadlines TO authenticated;
    GRANT ALL ON deadlines TO service_role;
  END IF;

  IF to_regclass('reminders') IS NULL THEN
    CREATE TABLE reminders (
      id UUID PRIMARY KEY DEFAULT gen_random_uuid(),
      user_id UUID REFERENCES users(id) ON DELETE CASCADE,
      title TEXT NOT NULL,
      reminder_time TIMESTAMP NOT NULL,
      priority TEXT DEFAULT 'medium',
      status TEXT DEFAULT 'pending',
      created_by TEXT DEFAULT 'user',
      created_at TIMESTAMP DEFAULT NOW()
    );
    CREATE INDEX idx_reminders_user_time ON reminders(user_id, reminder_time, status);
    ALTER TABLE reminders ENABLE ROW LEVEL SECURITY;
    CREATE POLICY "Users can view own reminders" ON reminders
      FOR SELECT TO authenticated USING (user_id = auth.uid());
    CREATE POLICY "Users can update own reminders" ON reminders
      FOR UPDATE TO authenticated USING (user_id = auth.uid()) WITH CHECK (user_id = auth.uid());
    CREATE POLICY "Users can create own reminders" ON reminders
      FOR INSERT TO authenticated WITH CHECK (user_id = auth.uid() AND created_by = 'user');
    REVOKE ALL ON reminders FROM PUBLIC, anon, authenticated;
    GRANT SELECT, UPDATE (status), INSERT (user_id, title, reminder_time, priority, status, created_by)
      ON reminders TO authenticated;
    GRANT ALL ON reminders TO service_role;
  END IF;
END
$$;

-- 3. PRD columns an older copy of the app's tables may lack (nullable: the app's rows have no value for them).
ALTER TABLE calendar_events ADD COLUMN IF NOT EXISTS conversation_id UUID REFERENCES conversations(id) ON DELETE CASCADE,
  ADD COLUMN IF NOT EXISTS message_id UUID REFERENCES messages(id) ON DELETE CASCADE,
  ADD COLUMN IF NOT EXISTS description TEXT, ADD COLUMN IF NOT EXISTS category TEXT,
  ADD COLUMN IF NOT EXISTS confidence FLOAT, ADD COLUMN IF NOT EXISTS confirmed BOOLEAN DEFAULT FALSE;
ALTER TABLE decisions ADD COLUMN IF NOT EXISTS category TEXT, ADD COLUMN IF NOT EXISTS deadline DATE;
ALTER TABLE rsvp_tracking ADD COLUMN IF NOT EXISTS event_date DATE, ADD COLUMN IF NOT EXISTS response TEXT,
  ADD COLUMN IF NOT EXISTS responded_at TIMESTAMP;
ALTER TABLE deadlines ADD COLUMN IF NOT EXISTS priority TEXT, ADD COLUMN IF NOT EXISTS details TEXT,
  ADD COLUMN IF NOT EXISTS completed_at TIMESTAMP;
ALTER TABLE reminders ADD COLUMN IF NOT EXISTS created_by TEXT DEFAULT 'user';

-- 4. The service's columns.
ALTER TABLE calendar_events
  ADD COLUMN IF NOT EXISTS idempotency_key TEXT,
  ADD COLUMN IF NOT EXISTS source_message_ids UUID[] NOT NULL DEFAULT '{}',
  ADD COLUMN IF NOT EXISTS end_time TIME,
  ADD COLUMN IF NOT EXISTS starts_at TIMESTAMPTZ,
  ADD COLUMN IF NOT EXISTS ends_at TIMESTAMPTZ,
  ADD COLUMN IF NOT EXISTS time_zone TEXT,
  ADD COLUMN IF NOT EXISTS date_phrase TEXT,
  ADD COLUMN IF NOT EXISTS model_date DATE,
  ADD COLUMN IF NOT EXISTS run_id UUID REFERENCES job_runs(id) ON DELETE SET NULL,
  ADD COLUMN IF NOT EXISTS prompt_id TEXT,
  ADD COLUMN IF NOT EXISTS prompt_version INTEGER,
  ADD COLUMN IF NOT EXISTS model TEXT,
  ADD COLUMN IF NOT EXISTS updated_at TIMESTAMPTZ DEFAULT now();

ALTER TABLE decisions
  ADD COLUMN IF NOT EXISTS idempotency_key TEXT,
  ADD COLUMN IF NOT EXISTS source_message_ids UUID[] NOT NULL DEFAULT '{}',
  ADD COLUMN IF NOT EXISTS date_phrase TEXT,
  ADD COLUMN IF NOT EXISTS model_date DATE,
  ADD COLUMN IF NOT EXISTS run_id UUID REFERENCES job_runs(id) ON DELETE SET NULL,
  ADD COLUMN IF NOT EXISTS prompt_id TEXT,
  ADD COLUMN IF NOT EXISTS prompt_version INTEGER,
  ADD COLUMN IF NOT EXISTS model TEXT,
  ADD COLUMN IF NOT EXISTS updated_at TIMESTAMPTZ DEFAULT now();

-- conversation_id: the PRD reaches a priority message's conversation through messages; the service keeps it here.
ALTER TABLE priority_messages
  ADD COLUMN IF NOT EXISTS idempotency_key TEXT,
  ADD COLUMN IF NOT EXISTS conversation_id UUID REFERENCES conversations(id) ON DELETE CASCADE,
  ADD COLUMN IF NOT EXISTS run_id UUID REFERENCES job_runs(id) ON DELETE SET NULL,
  ADD COLUMN IF NOT EXISTS prompt_id TEXT,
  ADD COLUMN IF NOT EXISTS prompt_version INTEGER,
  ADD COLUMN IF NOT EXISTS model TEXT,
  ADD COLUMN IF NOT EXISTS updated_at TIMESTAMPTZ DEFAULT now();

ALTER TABLE rsvp_tracking
  ADD COLUMN IF NOT EXISTS idempotency_key TEXT,
  ADD COLUMN IF NOT EXISTS item_key TEXT,
  ADD COLUMN IF NOT EXISTS response_message_id UUID REFERENCES messages(id) ON DELETE SET NULL,
  ADD COLUMN IF NOT EXISTS date_phrase TEXT,
  ADD COLUMN IF NOT EXISTS model_date DATE,
  ADD COLUMN IF NOT EXISTS run_id UUID REFERENCES job_runs(id) ON DELETE SET NULL,
  ADD COLUMN IF NOT EXISTS prompt_id TEXT,
  ADD COLUMN IF NOT EXISTS prompt_version INTEGER,
  ADD COLUMN IF NOT EXISTS model TEXT,
  ADD COLUMN IF NOT EXISTS updated_at TIMESTAMPTZ DEFAULT now();

-- deadline_time and due_at: the hour when the message gave one, and the instant (23:59 local without one).
ALTER TABLE deadlines
  ADD COLUMN IF NOT EXISTS idempotency_key TEXT,
  ADD COLUMN IF NOT EXISTS item_key TEXT,
  ADD COLUMN IF NOT EXISTS deadline_time TIME,
  ADD COLUMN IF NOT EXISTS due_at TIMESTAMPTZ,
  ADD COLUMN IF NOT EXISTS date_phrase TEXT,
  ADD COLUMN IF NOT EXISTS model_date DATE,
  ADD COLUMN IF NOT EXISTS run_id UUID REFERENCES job_runs(id) ON DELETE SET NULL,
  ADD COLUMN IF NOT EXISTS prompt_id TEXT,
  ADD COLUMN IF NOT EXISTS prompt_version INTEGER,
  ADD COLUMN IF NOT EXISTS model TEXT,
  ADD COLUMN IF NOT EXISTS updated_at TIMESTAMPTZ DEFAULT now();

-- origin: which part of the service wrote a reminder ('extractor': the evening before a deadline; 'assistant':
-- the proactive assistant). created_by stays the app's vocabulary: the service writes 'ai', as the PRD did.
ALTER TABLE reminders
  ADD COLUMN IF NOT EXISTS idempotency_key TEXT,
  ADD COLUMN IF NOT EXISTS item_key TEXT,
  ADD COLUMN IF NOT EXISTS origin TEXT CHECK (origin IN ('extractor', 'assistant')),
  ADD COLUMN IF NOT EXISTS deadline_id UUID REFERENCES deadlines(id) ON DELETE CASCADE,
  ADD COLUMN IF NOT EXISTS conversation_id UUID REFERENCES conversations(id) ON DELETE CASCADE,
  ADD COLUMN IF NOT EXISTS run_id UUID REFERENCES job_runs(id) ON DELETE SET NULL,
  ADD COLUMN IF NOT EXISTS prompt_id TEXT,
  ADD COLUMN IF NOT EXISTS prompt_version INTEGER,
  ADD COLUMN IF NOT EXISTS model TEXT,
  ADD COLUMN IF NOT EXISTS updated_at TIMESTAMPTZ DEFAULT now();

-- 5. Unique identities. A UNIQUE index treats NULLs as distinct, so the app's rows (no key) never collide and
-- `ON CONFLICT (idempotency_key)` matches these indexes.
CREATE UNIQUE INDEX IF NOT EXISTS uq_calendar_events_idempotency_key ON calendar_events(idempotency_key);
CREATE UNIQUE INDEX IF NOT EXISTS uq_decisions_idempotency_key ON decisions(idempotency_key);
CREATE UNIQUE INDEX IF NOT EXISTS uq_priority_messages_idempotency_key ON priority_messages(idempotency_key);
CREATE UNIQUE INDEX IF NOT EXISTS uq_rsvp_tracking_idempotency_key ON rsvp_tracking(idempotency_key);
CREATE UNIQUE INDEX IF NOT EXISTS uq_rsvp_tracking_user_item ON rsvp_tracking(user_id, item_key);
CREATE UNIQUE INDEX IF NOT EXISTS uq_deadlines_idempotency_key ON deadlines(idempotency_key);
CREATE UNIQUE INDEX IF NOT EXISTS uq_deadlines_user_item ON deadlines(user_id, item_key);
CREATE UNIQUE INDEX IF NOT EXISTS uq_reminders_idempotency_key ON reminders(idempotency_key);
CREATE UNIQUE INDEX IF NOT EXISTS uq_reminders_user_item ON reminders(user_id, item_key);
-- What the service's writes and removals look up.
CREATE INDEX IF NOT EXISTS idx_calendar_events_message ON calendar_events(message_id);
CREATE INDEX IF NOT EXISTS idx_decisions_message ON decisions(message_id);
CREATE INDEX IF NOT EXISTS idx_priority_messages_conversation ON priority_messages(conversation_id, priority);
CREATE INDEX IF NOT EXISTS idx_rsvp_tracking_conversation ON rsvp_tracking(conversation_id);
CREATE INDEX IF NOT EXISTS idx_deadlines_conversation ON deadlines(conversation_id);
CREATE INDEX IF NOT EXISTS idx_deadlines_message ON deadlines(message_id);
CREATE INDEX IF NOT EXISTS idx_reminders_deadline ON reminders(deadline_id);

-- 6. Backfill what the app's rows imply (only NULL or empty service columns; the app's own columns stay as written).
UPDATE calendar_events SET source_message_ids = ARRAY[message_id]
  WHERE message_id IS NOT NULL AND source_message_ids = '{}';
UPDATE decisions SET source_message_ids = ARRAY[message_id]
  WHERE message_id IS NOT NULL AND source_message_ids = '{}';
UPDATE priority_messages p SET conversation_id = m.conversation_id
  FROM messages m WHERE m.id = p.message_id AND p.conversation_id IS NULL;
