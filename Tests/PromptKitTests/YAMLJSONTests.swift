import Core
import Testing
@testable import PromptKit

@Suite("YAML → JSON")
struct YAMLJSONTests {
    @Test func plainScalarsFollowTheNarrowCoreSchema() throws {
        let doc = try YAMLJSON.parse("""
            time: 17:30
            answer: no
            yes_: yes
            on_: on
            date: 2026-04-17
            nothing: null
            tilde: ~
            empty:
            t: true
            f: False
            n: 42
            neg: -7
            zero_led: 0123
            pi: 3.25
            exp: 1e3
            inf: .inf
            word: hello world
            """, file: "t.yaml")
        let root = doc.root
        #expect(root["time"] == .string("17:30"))
        #expect(root["answer"] == .string("no"))
        #expect(root["yes_"] == .string("yes"))
        #expect(root["on_"] == .string("on"))
        #expect(root["date"] == .string("2026-04-17"))
        #expect(root["nothing"] == .null)
        #expect(root["tilde"] == .null)
        #expect(root["empty"] == .null)
        #expect(root["t"] == .bool(true))
        #expect(root["f"] == .bool(false))
        #expect(root["n"] == .integer(42))
        #expect(root["neg"] == .integer(-7))
        #expect(root["zero_led"] == .string("0123"))
        #expect(root["pi"] == .number(3.25))
        #expect(root["exp"] == .number(1000))
        #expect(root["inf"] == .string(".inf"))
        #expect(root["word"] == .string("hello world"))
    }

    @Test func quotedAndBlockScalarsAreAlwaysStrings() throws {
        let doc = try YAMLJSON.parse("""
            a: "42"
            b: 'true'
            c: "null"
            d: !!str 7
            e: |
              12
            f: x
            """, file: "t.yaml")
        #expect(doc.root["a"] == .string("42"))
        #expect(doc.root["b"] == .string("true"))
        #expect(doc.root["c"] == .string("null"))
        #expect(doc.root["d"] == .string("7"))
        #expect(doc.root["e"] == .string("12\n"))
    }

    @Test func keepsKeyOrderAndNesting() throws {
        let doc = try YAMLJSON.parse("z: 1\na: [x, {k: v}]\nm: {}\n", file: "t.yaml")
        #expect(doc.root.objectValue?.keys == ["z", "a", "m"])
        #expect(doc.root["a"] == .array([.string("x"), .object(["k": .string("v")])]))
        #expect(doc.root["m"] == .object(JSONObject()))
    }

    @Test func recordsLinesForEveryNode() throws {
        let text = """
            id: x
            messages:
              - id: m1
                sender: p1
              - id: m2
                sender: p9
            system: |
              line zero
              line one
            """
        let doc = try YAMLJSON.parse(text, file: "t.yaml")
        #expect(doc.line(at: [.key("id")]) == 1)
        #expect(doc.line(at: [.key("messages"), .index(1), .key("sender")]) == 6)
        #expect(doc.line(forPath: "$.messages[1].sender") == 6)
        #expect(doc.line(forPath: "/messages/0/id") == 3)
        // A path that does not exist falls back to its nearest ancestor.
        #expect(doc.line(forPath: "$.messages[1].missing") == 5)
        #expect(doc.line(at: [.key("system")], textLine: 1) == 9)
        #expect(doc.keyLine(at: [.key("system")]) == 7)
    }

    @Test func syntaxErrorsNameFileAndLine() {
        #expect {
            _ = try YAMLJSON.parse("a: 1\nb: [unclosed\nc: 2\n", file: "bad.yaml")
        } throws: { error in
            let error = error as? FileProblem
            return error?.file == "bad.yaml" && (error?.line ?? 0) >= 2 && error!.description.hasPrefix("bad.yaml:")
        }
    }

    @Test func duplicateKeysAreErrors() {
        #expect {
            _ = try YAMLJSON.parse("a: 1\nb: 2\na: 3\n", file: "dup.yaml")
        } throws: { error in
            (error as? FileProblem)?.message.contains("'a'") == true
        }
    }

    @Test func emptyDocumentIsNull() throws {
        #expect(try YAMLJSON.parse("", file: "e.yaml").root == .null)
        #expect(try YAMLJSON.parse("# only a comment\n", file: "e.yaml").root == .null)
    }

    @Test func pathStringsRoundTrip() {
        let path: [JSONPathComponent] = [.key("messages"), .index(3), .key("odd key"), .key("sender")]
        #expect(JSONPath.string(path) == "$.messages[3]['odd key'].sender")
        #expect(JSONPath.parse(JSONPath.string(path)) == path)
        #expect(JSONPath.parse("$.a[x]") == nil)
        #expect(JSONPath.display(path) == "messages[3]['odd key'].sender")
    }
}
