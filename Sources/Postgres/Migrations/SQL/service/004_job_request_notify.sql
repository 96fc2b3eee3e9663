-- Wakes the worker (`messageai-jobs worker`, LISTEN job_requests) the moment a request becomes pending, so the
-- app only has to INSERT a row. The payload is the request's id. Also fires when a request goes back to
-- pending (a worker released it on shutdown, or an operator reset a failed one), so another worker takes it
-- at once. Notifications are delivered on commit; workers also poll, so a lost one only delays a request.
CREATE FUNCTION job_requests_notify() RETURNS TRIGGER AS $$
BEGIN
  PERFORM pg_notify('job_requests', NEW.id::text);
  RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER job_requests_notify
  AFTER INSERT OR UPDATE OF status ON job_requests
  FOR EACH ROW WHEN (NEW.status = 'pending')
  EXECUTE FUNCTION job_requests_notify();
