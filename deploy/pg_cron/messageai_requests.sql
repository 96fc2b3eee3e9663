-- Scheduling inside Postgres with pg_cron: the database enqueues job_requests and the worker
-- (`messageai-jobs worker`) serves them. Use this when there is no host cron or Kubernetes, e.g. on Supabase
-- (Database -> Extensions -> pg_cron). Run it with psql in the database that holds job_requests:
--   psql "$DATABASE_URL" -f deploy/pg_cron/messageai_requests.sql
-- cron.schedule(name, ...) replaces a job of the same name, so running this file again changes nothing.
-- pg_cron's times are UTC unless cron.timezone says otherwise. If pg_cron lives in another database than the
-- app's tables (cron.database_name), use cron.schedule_in_database(name, schedule, command, 'your_database').
CREATE EXTENSION IF NOT EXISTS pg_cron;

-- Nightly at 02:30: extract every conversation that changed in the last day. An extract request reads the
-- whole conversation (the nightly `scan` reads only new messages, and is the cheaper choice where it can run).
-- A conversation that already has an extract request waiting or running is not enqueued again.
SELECT cron.schedule('messageai-nightly-extract', '30 2 * * *', $$
  INSERT INTO job_requests (kind, conversation_id)
  SELECT 'extract', c.id
  FROM conversations c
  WHERE messageai_utc(c.updated_at) > now() - interval '1 day'  -- the app's TIMESTAMP is UTC, whatever the session's zone
    AND NOT EXISTS (SELECT 1 FROM job_requests r
                    WHERE r.kind = 'extract' AND r.conversation_id = c.id AND r.status IN ('pending', 'running'))
$$);

-- Every hour: the proactive assistant for each user for whom it is now 7 in the morning (their
-- user_settings time zone, UTC without one: put your MESSAGEAI_TIMEZONE in place of 'UTC' below), if they sent a
-- message in the last week. Unknown time zone
-- names are skipped rather than failing the whole insert.
SELECT cron.schedule('messageai-morning-assist', '0 * * * *', $$
  INSERT INTO job_requests (kind, user_id)
  SELECT 'assist', u.id
  FROM users u
  LEFT JOIN user_settings s ON s.user_id = u.id
  JOIN pg_timezone_names tz ON tz.name = COALESCE(s.time_zone, 'UTC')
  WHERE extract(hour FROM now() AT TIME ZONE tz.name) = 7
    AND EXISTS (SELECT 1 FROM messages m
                WHERE m.sender_id = u.id AND messageai_utc(m.created_at) > now() - interval '7 days' AND m.deleted_at IS NULL)
    AND NOT EXISTS (SELECT 1 FROM job_requests r
                    WHERE r.kind = 'assist' AND r.user_id = u.id AND r.status IN ('pending', 'running'))
$$);

-- Weekly on Sunday at 04:00: forget finished requests older than 30 days.
SELECT cron.schedule('messageai-prune-requests', '0 4 * * 0', $$
  DELETE FROM job_requests WHERE status IN ('done', 'failed') AND finished_at < now() - interval '30 days'
$$);

-- To see the jobs and their last runs:
--   SELECT jobid, jobname, schedule, active FROM cron.job WHERE jobname LIKE 'messageai-%';
--   SELECT jobid, status, return_message, start_time FROM cron.job_run_details ORDER BY start_time DESC LIMIT 20;
-- To remove one: SELECT cron.unschedule('messageai-morning-assist');
