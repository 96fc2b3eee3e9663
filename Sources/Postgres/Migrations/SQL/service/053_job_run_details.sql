-- What a run wants an operator to know beyond its counts, e.g. {"messages_over_cap": 48000, "conversations_over_cap":
-- [...]} when a first scan read only the newest 2,000 messages of a conversation, or {"quarantined": [...]}.
ALTER TABLE job_runs ADD COLUMN details JSONB NOT NULL DEFAULT '{}'::jsonb;
