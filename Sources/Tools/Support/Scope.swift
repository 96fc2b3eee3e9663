/// SQL fragments that confine a query to what the bound user may see. Every tool query uses them with the bound
/// user id as a parameter, never an id from the model.
enum Scope {
    /// `conversation_id IN (the user's conversations)`, for a table aliased `alias`; `userParameter` is e.g. `$1`.
    static func inUserConversations(_ alias: String, userParameter: String) -> String {
        "\(alias).conversation_id IN (SELECT cp.conversation_id FROM conversation_participants cp WHERE cp.user_id = \(userParameter)::uuid)"
    }

    /// The item an event row stands for: `<conversation>:<ref>` for a row keyed by its tracked item's ref
    /// (`event:<conversation>:e3`, docs/over-nights.md), else the row itself. Two rows of one item never conflict.
    static func eventItem(_ alias: String) -> String {
        "\(alias).conversation_id::text || ':' || COALESCE(substring(\(alias).idempotency_key from ':([a-z][0-9]{1,6})$'), \(alias).id::text)"
    }

    /// A reminder the user may still act on: one naming no conversation, or one of a conversation she is in (directly
    /// or through its deadline), whose deadline is not closed (met, cancelled, lapsed, she left) nor done in the app.
    static func reminderOfOpenItem(_ alias: String, userParameter: String, includeClosed: String = "false") -> String {
        """
        (\(alias).conversation_id IS NULL OR \(inUserConversations(alias, userParameter: userParameter))) \
        AND (\(alias).deadline_id IS NULL OR EXISTS (SELECT 1 FROM deadlines rd WHERE rd.id = \(alias).deadline_id \
        AND (rd.conversation_id IS NULL OR \(inUserConversations("rd", userParameter: userParameter))) \
        AND (\(includeClosed) OR (rd.closed_at IS NULL \
        AND COALESCE(rd.status, 'pending') NOT IN ('completed', 'done', 'dismissed', 'cancelled')))))
        """
    }

    /// A conversation's name, or for an unnamed (direct) chat the names of its other participants.
    static func conversationName(_ alias: String, userParameter: String) -> String {
        """
        COALESCE(\(alias).name, (SELECT 'Chat with ' || string_agg(COALESCE(ou.display_name, ou.username), ', ' ORDER BY ou.username) \
        FROM conversation_participants op JOIN users ou ON ou.id = op.user_id \
        WHERE op.conversation_id = \(alias).id AND op.user_id <> \(userParameter)::uuid), 'Untitled chat')
        """
    }
}
