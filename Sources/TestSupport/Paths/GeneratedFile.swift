package import Core
package import Foundation

/// A file of the repository that code generates (the combined and the fixture schemas): tests compare the checked-in
/// copy with what the code builds, and write it when `MESSAGEAI_WRITE_GENERATED=1` is set, so none is edited by hand.
package enum GeneratedFile {
    package static let writeVariable = "MESSAGEAI_WRITE_GENERATED"

    /// Whether the JSON in `file` is `built`. When it is not and `MESSAGEAI_WRITE_GENERATED=1`, writes `built` there
    /// (pretty-printed) and answers true.
    package static func matches(_ built: JSONValue, file: URL,
                                environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Bool {
        let current = FileManager.default.contents(atPath: file.path).flatMap { try? JSONValue.parse($0) }
        if current == built { return true }
        guard environment[writeVariable] == "1" else { return false }
        try Data((built.serialized(pretty: true) + "\n").utf8).write(to: file, options: .atomic)
        return true
    }
}
