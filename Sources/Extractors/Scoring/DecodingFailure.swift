import Core

/// Turns a `DecodingError` into the path of the offending field and a sentence about it.
enum DecodingFailure {
    static func describe(_ error: any Error) -> (path: [JSONPathComponent], message: String) {
        guard let error = error as? DecodingError else { return ([], "\(error)") }
        switch error {
        case .typeMismatch(let type, let context):
            return (path(context.codingPath), "expected \(typeName(type))")
        case .valueNotFound(let type, let context):
            return (path(context.codingPath), "expected \(typeName(type)), got null")
        case .keyNotFound(let key, let context):
            return (path(context.codingPath), "missing required field '\(key.stringValue)'")
        case .dataCorrupted(let context):
            return (path(context.codingPath), context.debugDescription)
        @unknown default:
            return ([], "\(error)")
        }
    }

    static func path(_ codingPath: [any CodingKey]) -> [JSONPathComponent] {
        codingPath.map { key in key.intValue.map { .index($0) } ?? .key(key.stringValue) }
    }

    private static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "a boolean"
        case is Int.Type, is Int64.Type: "an integer"
        case is Double.Type: "a number"
        default: "\(type)"
        }
    }
}
