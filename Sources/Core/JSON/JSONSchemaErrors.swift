/// One way an instance breaks its schema, located precisely enough for a model (or a person) to fix it.
package struct JSONValidationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Where in the instance, as a JSON path: `$`, `$.events[0].date`, `$["odd key"]`.
    package let path: String
    /// The schema keyword that failed: `required`, `type`, `enum`, ...
    package let keyword: String
    /// What is wrong, in words: `expected string, got null`, `missing required property 'date'`.
    package let message: String

    package init(path: String, keyword: String, message: String) {
        self.path = path
        self.keyword = keyword
        self.message = message
    }

    package var description: String { "\(path): \(message)" }
}

/// The schema itself is unusable (bad keyword value, bad regex, `$ref` that points nowhere); caught at compile time
/// so a broken schema never silently accepts answers.
package struct JSONSchemaError: Error, Sendable, CustomStringConvertible {
    /// Where in the schema document, as a JSON pointer fragment: `#/properties/date/pattern`.
    package let schemaPath: String
    package let message: String

    package init(schemaPath: String, message: String) {
        self.schemaPath = schemaPath
        self.message = message
    }

    package var description: String { "invalid schema at \(schemaPath): \(message)" }
}
