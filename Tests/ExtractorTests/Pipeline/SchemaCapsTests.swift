import Foundation
import Core
import Testing
import TestSupport

/// Every answer schema the jobs ship bounds its answer: each array has `maxItems`, each string a `maxLength`, an
/// `enum`, a `format` or a `pattern`. A server that builds a grammar from the schema (llama.cpp) can then end a
/// rambling answer within the caps instead of at the token limit.
@Suite struct SchemaCapsTests {
    static let answerSchemas = ["assistant", "calendar_events", "combined", "deadlines", "decisions", "priority_messages", "rsvps"]

    static func unbounded(_ node: JSONValue, at path: String) -> [String] {
        guard let object = node.objectValue else { return [] }
        let types = Set(object["type"]?.stringValue.map { [$0] } ?? object["type"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        var found: [String] = []
        if types.contains("array"), object["maxItems"] == nil { found.append("\(path): an array without maxItems") }
        if types.contains("string"), object["maxLength"] == nil, object["enum"] == nil, object["format"] == nil, object["pattern"] == nil {
            found.append("\(path): a string without maxLength, enum, format or pattern")
        }
        for (name, child) in object["properties"]?.objectValue ?? JSONObject() { found += unbounded(child, at: "\(path).\(name)") }
        if let items = object["items"] { found += unbounded(items, at: "\(path)[]") }
        return found
    }

    @Test(arguments: answerSchemas)
    func everyArrayAndStringIsCapped(_ name: String) throws {
        let url = RepositoryPaths.root.appendingPathComponent("schemas/\(name).schema.json")
        let schema = try JSONValue.parse(String(contentsOf: url, encoding: .utf8))
        #expect(Self.unbounded(schema, at: "$") == [])
    }
}
