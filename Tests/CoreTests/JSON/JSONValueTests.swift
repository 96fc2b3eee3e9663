import Testing
@testable import Core

@Suite struct JSONValueTests {
    @Test func parsesAndRoundTripsKeepingKeyOrder() throws {
        let v = try JSONValue.parse(#"{"b":1,"a":[true,null,2.5,"x\n\u00e9"],"c":{}}"#)
        #expect(v["b"] == .integer(1))
        #expect(v["a"]?[2] == .number(2.5))
        #expect(v.serialized() == #"{"b":1,"a":[true,null,2.5,"x\né"],"c":{}}"#)
        #expect(v.serialized(sortedKeys: true) == #"{"a":[true,null,2.5,"x\né"],"b":1,"c":{}}"#)
    }

    @Test func rejectsTruncatedAndTrailingInput() {
        #expect(throws: JSONParseError.self) { try JSONValue.parse(#"{"a": [1, 2"#) }
        #expect(throws: JSONParseError.self) { try JSONValue.parse(#"{"a": 1} x"#) }
        #expect(throws: JSONParseError.self) { try JSONValue.parse(#""\ud800""#) }
        #expect(throws: JSONParseError.self) { try JSONValue.parse(String(repeating: "[", count: 300) + String(repeating: "]", count: 300)) }
    }

    @Test func surrogatePairsDecode() throws {
        #expect(try JSONValue.parse(#""\ud83d\ude00""#) == .string("😀"))
    }
}
