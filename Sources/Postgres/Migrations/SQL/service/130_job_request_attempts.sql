-- Requests like a queue's UI: every attempt of a request is kept (`requests show ID`), and the same work is not
-- enqueued twice.
--
-- job_request_attempts: one row per claim of a request by a worker: its number, the worker (owner), when it started
-- and ended, how it ended (done, retry_scheduled, failed, lease_lost, released, deferred), its error and the run it
-- recorded. An attempt whose worker died keeps finished_at NULL; the next claim (after the lease) is a new row.
CREATE TABLE job_request_attempts (
  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  request_id BIGINT NOT NULL REFERENCES job_requests(id) ON DELETE CASCADE,
  attempt INTEGER NOT NULL,
  owner TEXT NOT NULL,
  started_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  finished_at TIMESTAMPTZ,
  result TEXT,
  error TEXT,
  run_id UUID
);
CREATE INDEX idx_job_request_attempts_request ON job_request_attempts(request_id, id);

-- Service-internal, like job_request_events: closed to the app's API roles.
ALTER TABLE job_request_attempts ENABLE ROW LEVEL SECURITY;
REVOKE ALL ON job_request_attempts FROM PUBLIC, anon, authenticated;
GRANT ALL ON job_request_attempts TO service_role;

-- One pending request per piece of work (an extract of one conversation, an assist run for one user): the app enqueues
-- with a plain INSERT, and one for work that already waits in a pending request is skipped (INSERT 0 0) rather than
-- queued twice. Concurrent inserts for the same work take turns on an advisory lock, so two cannot both pass the
-- check. A request going back to pending (a retry, a released claim) is not checked: it is the same request.
-- The check runs with the inserting user's rights (not security definer): a signed-in user sees exactly the pending
-- requests for work she may request (her own assist runs, her conversations' extracts), so a duplicate of her work is
-- skipped, while an insert row level security refuses (another user's assist, a stranger's conversation) finds nothing,
-- goes on and is refused as before, instead of an INSERT 0 0 telling her that such a request waits. The service's own
-- connection (the tables' owner, not restricted by row level security) sees every request. Its search_path is pinned below to the schema the
-- migrations run in (not `public`: the service's schema may be another, as in the tests).
CREATE FUNCTION job_requests_skip_duplicate() RETURNS TRIGGER
LANGUAGE plpgsql AS $$
DECLARE
  work UUID := CASE WHEN NEW.kind = 'extract' THEN NEW.conversation_id ELSE NEW.user_id END;
BEGIN
  IF NEW.status <> 'pending' OR work IS NULL THEN
    RETURN NEW;
  END IF;
  PERFORM pg_advisory_xact_lock(hashtextextended('job_requests ' || NEW.kind || ' ' || work::text, 0));
  IF EXISTS (
    SELECT 1 FROM job_requests r
    WHERE r.status = 'pending' AND r.kind = NEW.kind
      AND (CASE WHEN r.kind = 'extract' THEN r.conversation_id ELSE r.user_id END) = work) THEN
    RETURN NULL;
  END IF;
  RETURN NEW;
END;
$$;
-- Names resolve in the service's schema, whatever the caller's search_path.
DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION job_requests_skip_duplicate() SET search_path = %I, pg_temp', current_schema());
END
$$;
REVOKE ALL ON FUNCTION job_requests_skip_duplicate() FROM PUBLIC;

CREATE TRIGGER job_requests_skip_duplicate
  BEFORE INSERT ON job_requests
  FOR EACH ROW EXECUTE FUNCTION job_requests_skip_duplicate();
CREATE INDEX idx_job_requests_pending_work
  ON job_requests (kind, (CASE WHEN kind = 'extract' THEN conversation_id ELSE user_id END)) WHERE status = 'pending';
