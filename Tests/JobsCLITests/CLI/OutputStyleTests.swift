import Foundation
import Core
import JobsKit
import TestSupport
import Testing
import JobsCLI

/// One output style (issue 38): every `--json` has snake_case keys, like the database, and lowercase ids; the scan's
/// `found` lists are structured items, not preformatted text.
@Suite("One output style in every --json")
struct OutputStyleTests {
    /// Every object key in `value`, with its path.
    static func keys(_ value: JSONValue, path: String = "$") -> [String] {
        switch value {
        case .object(let object): object.flatMap { key, child in ["\(path).\(key)"] + keys(child, path: "\(path).\(key)") }
        case .array(let items): items.enumerated().flatMap { keys($1, path: "\(path)[\($0)]") }
        default: []
        }
    }

    /// Every string value that is a UUID in capitals.
    static func uppercaseIDs(_ value: JSONValue) -> [String] {
        switch value {
        case .object(let object): object.flatMap { uppercaseIDs($0.value) }
        case .array(let items): items.flatMap(uppercaseIDs)
        case .string(let text): UUID(uuidString: text) != nil && text != text.lowercased() ? [text] : []
        default: []
        }
    }

    static func check(_ arguments: [String], _ db: TestDatabase) async throws -> JSONValue {
        let run = try await JobsBinary.run(arguments + ["--json"], db, timeout: 120)
        #expect(run.code == 0, "\(arguments.joined(separator: " ")): \(run.stderr)")
        let value = try JSONValue.parse(Data(run.stdout.utf8))
        let bad = keys(value).filter { path in
            let key = path.split(separator: ".").last.map(String.init) ?? path
            return key.wholeMatch(of: /[a-z0-9_\[\]]+/) == nil
        }
        #expect(bad.isEmpty, "\(arguments.joined(separator: " ")): keys not in snake_case: \(bad.prefix(10))")
        #expect(uppercaseIDs(value).isEmpty, "\(arguments.joined(separator: " ")): ids in capitals: \(uppercaseIDs(value).prefix(5))")
        return value
    }

    @Test("scan, extract, runs, requests and assist --json share snake_case keys and lowercase ids")
    func everyJSONOneStyle() async throws {
        try await TestDatabase.with { db in
            _ = try await DemoLoader(pool: db.pool).load(DemoDataset.make(now: Date()))
            let conversation = DemoDataset.conversationIDs.birthday.uuidString.lowercased()
            let scan = try await Self.check(["scan", "--provider", "rules"], db)
            let found = try #require(scan["found"]?.arrayValue?.first, "the demo has findings")
            #expect(found["conversation_id"]?.stringValue.flatMap(UUID.init(uuidString:)) != nil)
            let item = try #require(found["items"]?[0])
            #expect(item["feature"]?.stringValue != nil && item["fields"]?.objectValue != nil, "structured, not text: \(item)")
            #expect(item["fields"]?["source_message_ids"] != nil || item["fields"]?["sources"] != nil, "\(item)")

            _ = try await Self.check(["extract", "--conversation", conversation, "--provider", "rules", "--dry-run"], db)
            _ = try await Self.check(["runs"], db)
            _ = try await Self.check(["runs", "show", try #require(scan["run_id"]?.stringValue)], db)
            _ = try await Self.check(["requests", "extract", "--conversation", conversation], db)
            _ = try await Self.check(["requests", "list"], db)
            _ = try await Self.check(["assist", "--all", "--provider", "rules"], db)
        }
    }
}
