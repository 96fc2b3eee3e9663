-- Runs first, before the service changes anything: the app's AI tables (MessageAI PRD section 7), where they
-- exist, must have columns the service can read and write. A column of another type stops migrate here with
-- the table, the column and the fix; a missing column is added later (002), a missing table created.
DO $$
DECLARE
  spec TEXT[];
  found TEXT;
  allowed TEXT;
  ok BOOLEAN;
  specs TEXT[] := ARRAY[
    ['calendar_events', 'conversation_id', 'uuid'], ['calendar_events', 'message_id', 'uuid'],
    ['calendar_events', 'title', 'text'], ['calendar_events', 'date', 'date'],
    ['calendar_events', 'time', 'time without time zone'], ['calendar_events', 'location', 'text'],
    ['calendar_events', 'description', 'text'], ['calendar_events', 'category', 'text'],
    ['calendar_events', 'confidence', 'double precision|real|numeric'], ['calendar_events', 'confirmed', 'boolean'],
    ['decisions', 'conversation_id', 'uuid'], ['decisions', 'message_id', 'uuid'], ['decisions', 'decision_text', 'text'],
    ['decisions', 'category', 'text'], ['decisions', 'decided_by', 'uuid'], ['decisions', 'deadline', 'date'],
    ['priority_messages', 'message_id', 'uuid'], ['priority_messages', 'priority', 'text'],
    ['priority_messages', 'reason', 'text'], ['priority_messages', 'action_required', 'boolean'],
    ['priority_messages', 'dismissed', 'boolean'],
    ['rsvp_tracking', 'message_id', 'uuid'], ['rsvp_tracking', 'conversation_id', 'uuid'], ['rsvp_tracking', 'user_id', 'uuid'],
    ['rsvp_tracking', 'event_name', 'text'], ['rsvp_tracking', 'requested_by', 'uuid'], ['rsvp_tracking', 'deadline', 'date'],
    ['rsvp_tracking', 'event_date', 'date'], ['rsvp_tracking', 'status', 'text'], ['rsvp_tracking', 'response', 'text'],
    ['rsvp_tracking', 'responded_at', 'timestamp without time zone|timestamp with time zone'],
    ['deadlines', 'message_id', 'uuid'], ['deadlines', 'conversation_id', 'uuid'], ['deadlines', 'user_id', 'uuid'],
    ['deadlines', 'task', 'text'], ['deadlines', 'deadline', 'date'], ['deadlines', 'category', 'text'],
    ['deadlines', 'priority', 'text'], ['deadlines', 'details', 'text'], ['deadlines', 'status', 'text'],
    ['reminders', 'user_id', 'uuid'], ['reminders', 'title', 'text'],
    ['reminders', 'reminder_time', 'timestamp without time zone|timestamp with time zone'],
    ['reminders', 'priority', 'text'], ['reminders', 'status', 'text'], ['reminders', 'created_by', 'text']
  ];
BEGIN
  FOREACH spec SLICE 1 IN ARRAY specs LOOP
    CONTINUE WHEN to_regclass(spec[1]) IS NULL;  -- created below
    SELECT format_type(a.atttypid, a.atttypmod) INTO found
    FROM pg_attribute a WHERE a.attrelid = to_regclass(spec[1]) AND a.attname = spec[2] AND NOT a.attisdropped;
    CONTINUE WHEN found IS NULL;  -- added below
    ok := false;
    FOREACH allowed IN ARRAY string_to_array(spec[3], '|') LOOP
      ok := ok OR found = allowed OR (allowed = 'text' AND found LIKE 'character varying%');
    END LOOP;
    IF NOT ok THEN
      RAISE EXCEPTION 'table %.% is %, but the service needs % (the PRD''s section 7 shape)', spec[1], spec[2], found,
        replace(spec[3], '|', ' or ')
        USING HINT = format('Convert the column (for example ALTER TABLE %I ALTER COLUMN %I TYPE %s USING %I::%s, after '
          'checking that no row loses something you need), then run migrate again; nothing was changed.',
          spec[1], spec[2], split_part(spec[3], '|', 1), spec[2], split_part(spec[3], '|', 1));
    END IF;
  END LOOP;
  IF to_regclass('priority_messages') IS NOT NULL AND NOT EXISTS (
      SELECT 1 FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
      WHERE i.indrelid = to_regclass('priority_messages') AND i.indisunique AND i.indnkeyatts = 1
        AND i.indpred IS NULL AND a.attname = 'message_id') THEN
    RAISE EXCEPTION 'table priority_messages has no primary key or unique constraint on message_id (the PRD''s section 7 has one)'
      USING HINT = 'Remove duplicate message_id rows, then ALTER TABLE priority_messages ADD PRIMARY KEY (message_id) and run migrate again; nothing was changed.';
  END IF;
END
$$;

