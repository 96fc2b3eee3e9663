/// A YAML problem with its place in the source, so an author can jump straight to it.
public struct YAMLError: Error, Sendable, Hashable, CustomStringConvertible {
    public let file: String
    /// 1-based; 0 when the parser gave no position.
    public let line: Int
    /// 1-based; 0 when unknown.
    public let column: Int
    public let message: String

    public init(file: String, line: Int, column: Int, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }

    /// `prompts/x.yaml:3:5: message` — the form editors and CI logs turn into links.
    public var description: String {
        switch (line, column) {
        case (0, _): "\(file): \(message)"
        case (_, 0): "\(file):\(line): \(message)"
        default: "\(file):\(line):\(column): \(message)"
        }
    }
}
