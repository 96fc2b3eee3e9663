-- A member who left a conversation reads nothing of it any more (issue 46, docs/over-nights.md phase 2 point 4).
-- The app's own policies let a user read her RSVP rows, deadlines and reminders by user_id alone, and her findings
-- by user_id: after she leaves a conversation she would keep reading its rows. RESTRICTIVE policies are ANDed with
-- every permissive one, so these narrow what the app's policies (left exactly as they are) let her read, whoever
-- wrote them: a row that names a conversation (directly, through its deadline, or through the rows a finding cites)
-- is readable only while she is a participant of it. Rows naming no conversation (a reminder she wrote herself) are
-- not affected. The scan closes such rows too (closed_reason 'left'); these policies hold from the moment she leaves.

-- The conversation of a row a finding cites ({"table": ..., "id": ...}); NULL for a row that is gone or names none.
-- SECURITY DEFINER: the answer must not depend on the caller's own policies on those tables (which these narrow).
CREATE FUNCTION messageai_cited_conversation(cited_table TEXT, cited_id TEXT) RETURNS UUID
LANGUAGE sql STABLE SECURITY DEFINER AS $$
  SELECT CASE WHEN cited_id !~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' THEN NULL
    WHEN cited_table = 'calendar_events' THEN (SELECT conversation_id FROM calendar_events WHERE id = cited_id::uuid)
    WHEN cited_table = 'decisions' THEN (SELECT conversation_id FROM decisions WHERE id = cited_id::uuid)
    WHEN cited_table = 'rsvp_tracking' THEN (SELECT conversation_id FROM rsvp_tracking WHERE id = cited_id::uuid)
    WHEN cited_table = 'deadlines' THEN (SELECT conversation_id FROM deadlines WHERE id = cited_id::uuid)
    WHEN cited_table = 'reminders' THEN (SELECT COALESCE(r.conversation_id, d.conversation_id) FROM reminders r
                                         LEFT JOIN deadlines d ON d.id = r.deadline_id WHERE r.id = cited_id::uuid)
    -- A priority message is cited by its message id.
    WHEN cited_table = 'priority_messages' THEN (SELECT conversation_id FROM messages WHERE id = cited_id::uuid)
  END
$$;

-- May the signed-in user read what these cites rest on: is she a participant of every conversation they name?
CREATE FUNCTION messageai_may_read_cites(cites JSONB) RETURNS BOOLEAN
LANGUAGE sql STABLE SECURITY DEFINER AS $$
  SELECT NOT EXISTS (
    SELECT 1 FROM jsonb_array_elements(CASE WHEN jsonb_typeof(cites) = 'array' THEN cites ELSE '[]'::jsonb END) AS c(cite)
    CROSS JOIN LATERAL (SELECT messageai_cited_conversation(c.cite->>'table', c.cite->>'id') AS conversation) AS x
    WHERE x.conversation IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM conversation_participants p WHERE p.conversation_id = x.conversation AND p.user_id = auth.uid()))
$$;

DO $$
BEGIN
  EXECUTE format('ALTER FUNCTION messageai_cited_conversation(TEXT, TEXT) SET search_path = %I, pg_temp', current_schema());
  EXECUTE format('ALTER FUNCTION messageai_may_read_cites(JSONB) SET search_path = %I, pg_temp', current_schema());
END
$$;
REVOKE ALL ON FUNCTION messageai_cited_conversation(TEXT, TEXT), messageai_may_read_cites(JSONB) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION messageai_cited_conversation(TEXT, TEXT), messageai_may_read_cites(JSONB) TO authenticated, service_role;

CREATE POLICY "Members only: RSVPs of their conversations" ON rsvp_tracking AS RESTRICTIVE
  FOR SELECT TO authenticated USING (conversation_id IS NULL OR messageai_is_member(conversation_id));
CREATE POLICY "Members only: deadlines of their conversations" ON deadlines AS RESTRICTIVE
  FOR SELECT TO authenticated USING (conversation_id IS NULL OR messageai_is_member(conversation_id));
CREATE POLICY "Members only: reminders of their conversations" ON reminders AS RESTRICTIVE
  FOR SELECT TO authenticated USING (
    (conversation_id IS NULL OR messageai_is_member(conversation_id))
    AND (deadline_id IS NULL OR messageai_cited_conversation('deadlines', deadline_id::text) IS NULL
         OR messageai_is_member(messageai_cited_conversation('deadlines', deadline_id::text))));
CREATE POLICY "Members only: findings of their conversations" ON assistant_findings AS RESTRICTIVE
  FOR SELECT TO authenticated USING (messageai_may_read_cites(cites));
