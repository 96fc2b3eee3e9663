import Foundation
import Core
import Testing

/// The byte-wise serializer and the parser's no-escape fast path (issue 15) give exactly what the scalar-wise
/// versions gave. The old string writer is kept here as the reference.
@Suite struct ByteSerializationTests {
    static func referenceString(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case _ where scalar.value < 0x20 || scalar.value == 0x2028 || scalar.value == 0x2029:
                out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    static let strings = [
        "", "plain", "quote \" and \\ back", "tab\tnl\ncr\r", "\u{08}\u{0C}\u{00}\u{01}\u{1F}\u{7F}", "line\u{2028}para\u{2029}end",
        "\u{2027}\u{202A}’ – —", "é e\u{301} 😀 👨‍👩‍👧", "<messages>", "\u{E2}\u{80}", "ends with \u{2028}", "\u{2029}",
    ]

    @Test func stringsSerializeAsBefore() throws {
        for s in Self.strings {
            #expect(JSONValue.string(s).serialized() == Self.referenceString(s), "\(s.unicodeScalars.map(\.value))")
            #expect(try JSONValue.parse(JSONValue.string(s).serialized()) == .string(s))
        }
    }

    @Test func documentsSerializeAsBefore() throws {
        let value: JSONValue = ["b": [1, 2.5, -3, true, nil, "x\ny"], "a": ["k": "v\u{2028}", "e": [:] as JSONValue, "f": []], "n": 1e20]
        #expect(value.serialized() == #"{"b":[1,2.5,-3,true,null,"x\ny"],"a":{"k":"v\u2028","e":{},"f":[]},"n":1e+20}"#)
        #expect(value.serialized(sortedKeys: true) == #"{"a":{"e":{},"f":[],"k":"v\u2028"},"b":[1,2.5,-3,true,null,"x\ny"],"n":1e+20}"#)
        #expect(value.serialized(sortedKeys: true, pretty: true) == """
            {
              "a": {
                "e": {},
                "f": [],
                "k": "v\\u2028"
              },
              "b": [
                1,
                2.5,
                -3,
                true,
                null,
                "x\\ny"
              ],
              "n": 1e+20
            }
            """)
        #expect(String(decoding: value.serializedData(), as: UTF8.self) == value.serialized())
    }

    @Test func parserFastPathAndEscapesAgree() throws {
        #expect(try JSONValue.parse(#"{"plain":"abc é","esc":"a\"b\\c\u00e9\ud83d\ude00 tail","k\n":"x"}"#)
            == ["plain": "abc é", "esc": "a\"b\\cé😀 tail", "k\n": "x"])
        #expect(throws: JSONParseError.self) { try JSONValue.parse("\"unterminated") }
        #expect(throws: JSONParseError.self) { try JSONValue.parse("\"ctrl\u{01}\"") }
        #expect(throws: JSONParseError.self) { try JSONValue.parse(Data([0x22, 0xFF, 0x22])) }
        #expect(throws: JSONParseError.self) { try JSONValue.parse("\"esc \\q\"") }
    }
}
