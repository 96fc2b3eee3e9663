-- One definition of a valid time zone, the same as the jobs' (`UserTimeZonePolicy.isValidName` in Chrono): a name in
-- pg_timezone_names that is a zone of a place. The tz database's posix/ and right/ copies, localtime, posixrules and
-- Factory are refused (the jobs cannot use them, and `right/` zones count leap seconds), and so is anything that is
-- not a plain relative name. Rows already stored are not touched: the jobs read a zone they refuse as the default
-- zone and log a warning for that user.
CREATE FUNCTION messageai_valid_time_zone(name TEXT) RETURNS BOOLEAN
LANGUAGE sql STABLE AS $$
  SELECT name IS NOT NULL AND octet_length(name) BETWEEN 1 AND 64
    AND name ~ '^[A-Za-z0-9_+-][A-Za-z0-9/_+-]*$' AND strpos(name, '..') = 0
    AND name NOT IN ('localtime', 'posixrules', 'Factory')
    AND name NOT LIKE 'posix/%' AND name NOT LIKE 'right/%'
    AND EXISTS (SELECT 1 FROM pg_timezone_names z WHERE z.name = messageai_valid_time_zone.name)
$$;
DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION messageai_valid_time_zone(TEXT) SET search_path = %I, pg_catalog, pg_temp', current_schema());
END
$$;
REVOKE ALL ON FUNCTION messageai_valid_time_zone(TEXT) FROM PUBLIC;
-- The trigger runs as the user who writes her row (PostgREST's `authenticated`).
GRANT EXECUTE ON FUNCTION messageai_valid_time_zone(TEXT) TO authenticated, service_role;

CREATE OR REPLACE FUNCTION user_settings_check_time_zone() RETURNS TRIGGER
LANGUAGE plpgsql AS $$
BEGIN
  IF NOT messageai_valid_time_zone(NEW.time_zone) THEN
    RAISE EXCEPTION 'user_settings.time_zone ''%'' is not an IANA time zone name (e.g. America/New_York)', left(NEW.time_zone, 80)
      USING ERRCODE = 'check_violation',
            HINT = 'Use a zone of a place from the tz database; posix/, right/ and localtime are not accepted.';
  END IF;
  NEW.updated_at := now();
  RETURN NEW;
END
$$;
