import AgentRuntime
import Foundation
import Core
import Testing
import TestSupport

/// A secret disguised with invisible format characters (a zero-width space after its 4th character, joiners, a
/// BOM) is found and removed like a verbatim one; case is kept, ordinary text is untouched (issue 35 item 7).
@Suite("Secret scrubbing: disguised secrets")
struct DisguisedSecretTests {
    let key = "sk-test-SCRUB-1122334455"

    func disguised(_ mark: String = "\u{200B}", after count: Int = 4) -> String {
        String(key.prefix(count)) + mark + String(key.dropFirst(count))
    }

    @Test(arguments: ["\u{200B}", "\u{200C}", "\u{200D}", "\u{2060}", "\u{FEFF}", "\u{00AD}", "\u{200B}\u{200B}"])
    func aFormatCharacterDoesNotHideTheKey(_ mark: String) {
        let text = "key: \(disguised(mark)) and again \(disguised(mark, after: 11))!"
        #expect(SecretText.contains(key, in: text))
        #expect(SecretText.replacing(key, in: text, with: "[redacted]") == "key: [redacted] and again [redacted]!")
        // A body as a hostile server sends it: raw UTF-8 in plain text, and \u escapes in JSON.
        let raw = String(decoding: SecretScrubbing.scrub(Data("upstream says \(disguised(mark))".utf8), secret: key), as: UTF8.self)
        #expect(raw == "upstream says [redacted]")
        let json = JSONValue.object(["choices": [["message": ["content": .string(#"{"title":"Echo \#(disguised(mark))"}"#)]]]]).serialized()
        let escaped = json.replacingOccurrences(of: mark, with: mark.unicodeScalars.map { String(format: "\\u%04x", $0.value) }.joined())
        for body in [json, escaped] {
            let clean = String(decoding: SecretScrubbing.scrub(Data(body.utf8), secret: key), as: UTF8.self)
            #expect(!SecretText.normalized(clean).contains("1122334455"), "\(clean)")
            let content = try? JSONValue.parse(clean)["choices"]?[0]?["message"]?["content"]?.stringValue
            #expect(content.flatMap { try? JSONValue.parse($0)["title"]?.stringValue } == "Echo [redacted]")
        }
    }

    @Test func ordinaryTextIsUntouched() {
        #expect(SecretText.normalized("Sk\u{200B}-A") == "Sk-A")
        let chat = "Emma 👩‍👧 loves the café\u{200D}, see you at 4 — 😀 50%off &amp; 100% \\ done"
        #expect(SecretText.replacing(key, in: chat, with: "x") == chat)
        #expect(SecretText.replacing("café", in: chat, with: "x") == "Emma 👩‍👧 loves the x\u{200D}, see you at 4 — 😀 50%off &amp; 100% \\ done")
        // Joiners inside an emoji sequence stay: only a match's span is replaced.
        #expect(SecretText.replacing("Emma", in: chat, with: "E") == "E 👩‍👧 loves the café\u{200D}, see you at 4 — 😀 50%off &amp; 100% \\ done")
        let ascii = Data("{\"a\": \"no key here\"}".utf8)
        #expect(SecretScrubbing.scrub(ascii, secret: key) == ascii)
        // A short run of the key's letters is not its core: "1122334455" alone is ordinary digits.
        #expect(SecretText.replacing(key, in: "call 1122334455 or test", with: "x") == "call 1122334455 or test")
    }

    /// Issue 47 item 3: each disguise a reader undoes in their head, and the span it covers.
    @Test(arguments: [
        ("upper case", "SK-TEST-SCRUB-1122334455"),
        ("mixed case", "Sk-TeSt-scrub-1122334455"),
        ("JSON escape", #"sk\u002dtest\u002dSCRUB\u002d1122334455"#),
        ("escape behind backslashes", #"sk\\\u002Dtest-SCRUB-1122334455"#),
        ("every letter escaped", #"\u0073\u006b-test-SCRUB-1122334455"#),
        ("percent escape", "sk%2Dtest%2dSCRUB-1122334455"),
        ("percent, every byte", "%73%6B%2D%74%65%73%74%2D%53%43%52%55%42%2D%31%31%32%32%33%33%34%34%35%35"),
        ("percent UTF-8 full-width", "%EF%BD%93k-test-SCRUB-1122334455"),
        ("HTML entities", "sk&#45;test&#x2D;SCRUB&#x2d;1122334455"),
        ("full-width", "ｓｋ－ｔｅｓｔ－ＳＣＲＵＢ－１１２２３３４４５５"),
        ("zero-width and case", "SK\u{200B}-TEST-scrub\u{2060}-1122334455"),
    ])
    func aDisguiseDoesNotHideTheKey(_ disguise: (String, String)) {
        let text = "echo: [\(disguise.1)] end"
        #expect(SecretText.contains(key, in: text), "\(disguise.0)")
        #expect(SecretText.replacing(key, in: text, with: "[redacted]") == "echo: [[redacted]] end", "\(disguise.0)")
        let body = String(decoding: SecretScrubbing.scrub(Data(JSONValue.object(["content": .string(text)]).serialized().utf8), secret: key), as: UTF8.self)
        #expect(!body.contains("1122334455") && !body.contains("１１２２"), "\(disguise.0): \(body)")
    }

    @Test("a long key's core is a match on its own: swapped separators do not hide it")
    func theCoreOfALongKeyIsFound() {
        let long = "sk-proj-K3yT3stQ7rT2mXc9LpW4-echo"
        for echoed in ["sk_proj_K3yT3stQ7rT2mXc9LpW4_echo", "sk\u{2011}proj\u{2011}K3YT3STQ7RT2MXC9LPW4\u{2011}echo", "key K3yT3stQ7rT2mXc9LpW4 only"] {
            let clean = SecretText.replacing(long, in: echoed, with: "[redacted]")
            #expect(clean.contains("[redacted]") && !clean.lowercased().contains("q7rt2mxc9"), "\(echoed) -> \(clean)")
        }
        #expect(SecretText.replacing(long, in: "x \(long) y", with: "[redacted]") == "x [redacted] y", "the whole key, not only its core")
    }

    @Test("a server echoing the key with a zero-width space after its 4th character gets it into no error")
    func errorsHoldNoDisguisedKey() async throws {
        let server = try FakeOpenAIServer { request in
            let auth = (request.header("authorization") ?? "none").replacingOccurrences(of: "Bearer ", with: "")
            let echoed = String(auth.prefix(4)) + "\u{200B}" + String(auth.dropFirst(4))
            return .error(status: 401, message: "Incorrect API key provided: \(echoed)")
        }
        defer { server.stop() }
        let error = try #require(await llmError { _ = try await makeClient(server, apiKey: key, model: "m", timeout: .seconds(10), retry: .noRetries).complete(helloRequest) })
        #expect(!SecretText.normalized(error.description).contains("1122334455"), "\(error)")
        #expect(error.description.contains("[redacted]"), "\(error)")
        #expect(server.requests.first?.header("authorization") == "Bearer \(key)")
    }
}
