-- The nightly scan through OpenAI's Batch API: requests are rendered and submitted one night, answers collected
-- when the batch completes (within 24 h). Everything collect needs is kept here, so it decodes answers against
-- exactly what was sent even if messages changed in between.

CREATE TABLE llm_batches (
  id UUID PRIMARY KEY DEFAULT gen_random_uuid(),
  -- Provenance of the rows the batch writes, and its counts when collected.
  run_id UUID REFERENCES job_runs(id) ON DELETE SET NULL,
  -- preparing: claiming and rendering (short leases); submitted: waiting for OpenAI (long leases);
  -- collected / failed / expired / cancelled: done, conversations applied or released; empty: nothing to ask.
  status TEXT NOT NULL DEFAULT 'preparing'
    CHECK (status IN ('preparing', 'submitted', 'collected', 'failed', 'expired', 'cancelled', 'empty')),
  remote_batch_id TEXT UNIQUE,
  remote_status TEXT,
  input_file_id TEXT,
  output_file_id TEXT,
  error_file_id TEXT,
  request_counts JSONB,
  features TEXT[] NOT NULL,
  -- {"calendar_events": {"id": ..., "version": ..., "model": ...}, ...}: the prompts the requests were rendered with.
  prompts JSONB NOT NULL DEFAULT '{}'::jsonb,
  requests INTEGER NOT NULL DEFAULT 0,
  conversations INTEGER NOT NULL DEFAULT 0,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  submitted_at TIMESTAMPTZ,
  checked_at TIMESTAMPTZ,
  finished_at TIMESTAMPTZ,
  error TEXT
);
CREATE INDEX idx_llm_batches_status ON llm_batches(status, created_at);

-- One conversation of a batch: the input it was rendered from (jsonb snapshot, after the pre-filter) and the
-- watermark target (the last new message before the pre-filter), applied in one transaction with its rows.
CREATE TABLE llm_batch_conversations (
  batch_id UUID NOT NULL REFERENCES llm_batches(id) ON DELETE CASCADE,
  conversation_id UUID NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  input JSONB NOT NULL,
  watermark_message_id UUID,
  watermark_message_at TIMESTAMPTZ,
  new_messages INTEGER NOT NULL DEFAULT 0,
  skipped_messages INTEGER NOT NULL DEFAULT 0,
  status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'applied', 'failed')),
  error TEXT,
  finished_at TIMESTAMPTZ,
  PRIMARY KEY (batch_id, conversation_id)
);

-- One request line: custom_id = <batch id>:<conversation id>:<feature>:<window start>-<window end>.
CREATE TABLE llm_batch_items (
  custom_id TEXT PRIMARY KEY,
  batch_id UUID NOT NULL,
  conversation_id UUID NOT NULL,
  feature TEXT NOT NULL,
  window_start INTEGER NOT NULL CHECK (window_start >= 0),
  window_end INTEGER NOT NULL CHECK (window_end > window_start),
  status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'applied', 'failed')),
  error TEXT,
  FOREIGN KEY (batch_id, conversation_id) REFERENCES llm_batch_conversations(batch_id, conversation_id) ON DELETE CASCADE
);
CREATE INDEX idx_llm_batch_items_conversation ON llm_batch_items(batch_id, conversation_id);
