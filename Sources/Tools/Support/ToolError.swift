/// A tool call the tool refuses. The agent loop turns a thrown error into an error result the model can read,
/// so each message says which argument is wrong and what would be accepted.
package enum ToolError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The id names nothing this user can see. Other users' ids land here too, indistinguishable from unknown ones.
    case notFound(kind: String, field: String, id: String)
    case invalidArgument(field: String, reason: String)
    case limitReached(String)

    package var description: String {
        switch self {
        case .notFound(let kind, let field, let id): "\(field): no \(kind) with id '\(id)' was found"
        case .invalidArgument(let field, let reason): "\(field): \(reason)"
        case .limitReached(let message): message
        }
    }
}
