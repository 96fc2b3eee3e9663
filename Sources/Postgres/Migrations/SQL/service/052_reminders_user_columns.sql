-- The app's `reminders` table, when adopted, kept the grants Supabase's old default privileges gave it (ALL to anon and
-- authenticated) and the PRD's policy "Users can update own reminders": a member could rewrite every column of her
-- own rows, the service's too (idempotency_key, item_key, run_id, created_by...), and so make the service's next write
-- collide with its own unique keys. The PRD's app only inserts reminders and reads them; the column a user owns is
-- `status` (pending, sent, dismissed). Narrow the grants to what 002 gives a table it creates, the same under either
-- default privilege. (An app that lets users edit a reminder's title or time must also
-- GRANT UPDATE (title, reminder_time, priority) ON reminders TO authenticated.)
REVOKE INSERT, UPDATE ON reminders FROM PUBLIC, anon, authenticated;
GRANT INSERT (user_id, title, reminder_time, priority, status, created_by), UPDATE (status) ON reminders TO authenticated;
