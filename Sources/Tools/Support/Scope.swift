/// SQL fragments that confine a query to what the bound user may see. Every tool query uses them with the bound
/// user id as a parameter, never an id from the model.
enum Scope {
    /// `conversation_id IN (the user's conversations)`, for a table aliased `alias`; `userParameter` is e.g. `$1`.
    static func inUserConversations(_ alias: String, userParameter: String) -> String {
        "\(alias).conversation_id IN (SELECT cp.conversation_id FROM conversation_participants cp WHERE cp.user_id = \(userParameter)::uuid)"
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
