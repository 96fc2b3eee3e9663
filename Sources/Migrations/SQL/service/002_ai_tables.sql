-- What the extractors find, for the app to show (PRD section 7, fixed):
-- * every row has an idempotency_key (UNIQUE): a re-run updates the row instead of inserting a duplicate;
-- * per-user rows (rsvp_tracking, deadlines, reminders) are also UNIQUE (user_id, item_key);
-- * every AI row records provenance: run_id, prompt_id, prompt_version, model;
-- * calendar events know their conversation; times are timestamptz, dates are date;
-- * columns the app's users change (confirmed, dismissed, status) are never overwritten by a re-run;
-- * date_phrase is the text the date was read from; model_date keeps the model's date when code disagreed.

CREATE TABLE calendar_events (
  id UUID PRIMARY KEY DEFAULT gen_random_uuid(),
  idempotency_key TEXT NOT NULL UNIQUE,
  conversation_id UUID NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  message_id UUID REFERENCES messages(id) ON DELETE CASCADE,
  source_message_ids UUID[] NOT NULL DEFAULT '{}',
  title TEXT NOT NULL,
  date DATE NOT NULL,
  time TIME,
  end_time TIME,
  starts_at TIMESTAMPTZ,
  ends_at TIMESTAMPTZ,
  time_zone TEXT NOT NULL DEFAULT 'UTC',
  location TEXT,
  description TEXT,
  category TEXT NOT NULL CHECK (category IN ('school', 'medical', 'activity', 'social', 'other')),
  confidence DOUBLE PRECISION NOT NULL CHECK (confidence >= 0 AND confidence <= 1),
  confirmed BOOLEAN NOT NULL DEFAULT FALSE,
  date_phrase TEXT,
  model_date DATE,
  run_id UUID REFERENCES job_runs(id) ON DELETE SET NULL,
  prompt_id TEXT NOT NULL,
  prompt_version INTEGER NOT NULL,
  model TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX idx_calendar_events_conversation ON calendar_events(conversation_id, date);
CREATE INDEX idx_calendar_events_date ON calendar_events(date);

CREATE TABLE decisions (
  id UUID PRIMARY KEY DEFAULT gen_random_uuid(),
  idempotency_key TEXT NOT NULL UNIQUE,
  conversation_id UUID NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  message_id UUID REFERENCES messages(id) ON DELETE CASCADE,
  source_message_ids UUID[] NOT NULL DEFAULT '{}',
  decision_text TEXT NOT NULL,
  category TEXT NOT NULL CHECK (category IN ('carpool', 'activity', 'schedule', 'purchase', 'food', 'other')),
  decided_by UUID REFERENCES users(id) ON DELETE SET NULL,
  deadline DATE,
  date_phrase TEXT,
  model_date DATE,
  run_id UUID REFERENCES job_runs(id) ON DELETE SET NULL,
  prompt_id TEXT NOT NULL,
  prompt_version INTEGER NOT NULL,
  model TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX idx_decisions_conversation ON decisions(conversation_id);

CREATE TABLE priority_messages (
  message_id UUID PRIMARY KEY REFERENCES messages(id) ON DELETE CASCADE,
  idempotency_key TEXT NOT NULL UNIQUE,
  conversation_id UUID NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  priority TEXT NOT NULL CHECK (priority IN ('urgent', 'high', 'medium')),
  reason TEXT NOT NULL,
  action_required BOOLEAN NOT NULL DEFAULT FALSE,
  dismissed BOOLEAN NOT NULL DEFAULT FALSE,
  run_id UUID REFERENCES job_runs(id) ON DELETE SET NULL,
  prompt_id TEXT NOT NULL,
  prompt_version INTEGER NOT NULL,
  model TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX idx_priority_messages_conversation ON priority_messages(conversation_id, priority);

-- One row per participant and RSVP request: status comes from who answered, not from a call per user.
CREATE TABLE rsvp_tracking (
  id UUID PRIMARY KEY DEFAULT gen_random_uuid(),
  idempotency_key TEXT NOT NULL UNIQUE,
  item_key TEXT NOT NULL,
  conversation_id UUID NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  message_id UUID REFERENCES messages(id) ON DELETE CASCADE,
  user_id UUID NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  event_name TEXT NOT NULL,
  requested_by UUID REFERENCES users(id) ON DELETE SET NULL,
  deadline DATE,
  event_date DATE NOT NULL,
  status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'responded')),
  response TEXT CHECK (response IN ('yes', 'no', 'maybe')),
  response_message_id UUID REFERENCES messages(id) ON DELETE SET NULL,
  responded_at TIMESTAMPTZ,
  date_phrase TEXT,
  model_date DATE,
  run_id UUID REFERENCES job_runs(id) ON DELETE SET NULL,
  prompt_id TEXT NOT NULL,
  prompt_version INTEGER NOT NULL,
  model TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  UNIQUE (user_id, item_key),
  CHECK ((status = 'responded') = (response IS NOT NULL))
);
CREATE INDEX idx_rsvp_tracking_user_status ON rsvp_tracking(user_id, status, deadline);

CREATE TABLE deadlines (
  id UUID PRIMARY KEY DEFAULT gen_random_uuid(),
  idempotency_key TEXT NOT NULL UNIQUE,
  item_key TEXT NOT NULL,
  conversation_id UUID NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  message_id UUID REFERENCES messages(id) ON DELETE CASCADE,
  user_id UUID NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  task TEXT NOT NULL,
  deadline DATE NOT NULL,
  deadline_time TIME,
  due_at TIMESTAMPTZ NOT NULL,
  category TEXT NOT NULL CHECK (category IN ('school', 'medical', 'activity', 'payment', 'other')),
  priority TEXT NOT NULL CHECK (priority IN ('urgent', 'high', 'medium', 'low')),
  details TEXT,
  status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'completed', 'dismissed')),
  completed_at TIMESTAMPTZ,
  date_phrase TEXT,
  model_date DATE,
  run_id UUID REFERENCES job_runs(id) ON DELETE SET NULL,
  prompt_id TEXT NOT NULL,
  prompt_version INTEGER NOT NULL,
  model TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  UNIQUE (user_id, item_key)
);
CREATE INDEX idx_deadlines_user_status ON deadlines(user_id, status, deadline);

-- Reminders: the app's users create some (created_by = 'user', no provenance); the service creates others
-- (for deadlines, or the assistant), always with an idempotency key and provenance.
CREATE TABLE reminders (
  id UUID PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id UUID NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  title TEXT NOT NULL,
  reminder_time TIMESTAMPTZ NOT NULL,
  priority TEXT NOT NULL DEFAULT 'medium' CHECK (priority IN ('urgent', 'high', 'medium', 'low')),
  status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'dismissed', 'completed')),
  created_by TEXT NOT NULL DEFAULT 'user' CHECK (created_by IN ('user', 'extractor', 'assistant')),
  idempotency_key TEXT UNIQUE,
  item_key TEXT,
  deadline_id UUID REFERENCES deadlines(id) ON DELETE CASCADE,
  conversation_id UUID REFERENCES conversations(id) ON DELETE CASCADE,
  run_id UUID REFERENCES job_runs(id) ON DELETE SET NULL,
  prompt_id TEXT,
  prompt_version INTEGER,
  model TEXT,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  UNIQUE (user_id, item_key),
  CHECK (created_by = 'user' OR (idempotency_key IS NOT NULL AND item_key IS NOT NULL AND prompt_id IS NOT NULL
                                 AND prompt_version IS NOT NULL AND model IS NOT NULL))
);
CREATE INDEX idx_reminders_user_time ON reminders(user_id, reminder_time, status);
