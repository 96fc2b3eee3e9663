import Foundation

/// The limits every tool applies, so no argument can make a query or a result unbounded.
enum Bounds {
    static let days = 1...60
    static let count = 1...100
    static let messageTextLength = 500
    static let shortTextLength = 200

    static func clamp(_ value: Int, to range: ClosedRange<Int>) -> Int {
        min(max(value, range.lowerBound), range.upperBound)
    }

    /// At most `limit` characters, with an ellipsis when something was cut.
    static func truncate(_ text: String, to limit: Int) -> String {
        text.count <= limit ? text : String(text.prefix(limit - 1)) + "…"
    }

    static func truncate(_ text: String?, to limit: Int) -> String? {
        text.map { truncate($0, to: limit) }
    }
}

/// Parses an id argument. A malformed id is reported as such; a well-formed one is looked up and, when the user
/// cannot see it, reported exactly like one that does not exist.
func parseID(_ text: String, field: String) throws -> UUID {
    guard let id = UUID(uuidString: text.trimmingCharacters(in: .whitespaces)) else {
        throw ToolError.invalidArgument(field: field, reason: "'\(Bounds.truncate(text, to: 60))' is not an id (expected a UUID as returned by another tool)")
    }
    return id
}
