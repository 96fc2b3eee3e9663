-- The sixth feature's table, as its service migration (Sources/Postgres/Migrations/SQL/service/) would create it: one row per
-- carpool offer, keyed by the service for idempotent writes, and like every table of the app behind row level
-- security: members of the conversation may read its rows, nobody else, and only the service writes.
CREATE TABLE carpools (
  id UUID PRIMARY KEY DEFAULT gen_random_uuid(),
  conversation_id UUID NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  message_id UUID REFERENCES messages(id) ON DELETE CASCADE,
  driver_id UUID REFERENCES users(id),
  ride_date DATE NOT NULL,
  date_phrase TEXT,
  model_date DATE,
  idempotency_key TEXT UNIQUE,
  run_id UUID REFERENCES job_runs(id) ON DELETE SET NULL,
  prompt_id TEXT,
  prompt_version INTEGER,
  model TEXT,
  created_at TIMESTAMPTZ DEFAULT now(),
  updated_at TIMESTAMPTZ DEFAULT now()
);
CREATE INDEX idx_carpools_conversation ON carpools(conversation_id);
ALTER TABLE carpools ENABLE ROW LEVEL SECURITY;
CREATE POLICY "Users can view carpools in their conversations" ON carpools
  FOR SELECT TO authenticated USING (messageai_is_member(conversation_id));
REVOKE ALL ON carpools FROM PUBLIC, anon, authenticated;
GRANT SELECT ON carpools TO authenticated;
GRANT ALL ON carpools TO service_role;
