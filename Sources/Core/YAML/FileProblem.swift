/// One thing wrong at a place in a file, so an author can jump straight to it: the one position-carrying problem of
/// every loader that reads files people write (YAML, prompts, fixtures, predictions, schemas, the price table).
package struct FileProblem: Error, Sendable, Hashable, CustomStringConvertible {
    package let file: String
    /// 1-based; 0 when the problem concerns the whole file or the reader gave no position.
    package let line: Int
    /// 1-based; 0 when unknown.
    package let column: Int
    /// The field path as people write it (`messages[0].sender`); empty when the line says enough.
    package let field: String
    package let message: String

    package init(file: String, line: Int, column: Int = 0, field: String = "", message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.field = field
        self.message = message
    }

    /// `prompts/x.yaml:3:5: message`, `fixtures/a.yaml:7: messages[0].sender: message`: the form editors and CI logs
    /// turn into links.
    package var description: String {
        let place = switch (line, column) {
        case (0, _): file
        case (_, 0): "\(file):\(line)"
        default: "\(file):\(line):\(column)"
        }
        return field.isEmpty ? "\(place): \(message)" : "\(place): \(field): \(message)"
    }
}
