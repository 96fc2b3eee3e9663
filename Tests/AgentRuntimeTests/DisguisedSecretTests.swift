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

    @Test func caseIsKeptAndOrdinaryTextIsUntouched() {
        #expect(!SecretText.contains(key, in: key.uppercased()))
        #expect(SecretText.normalized("Sk\u{200B}-A") == "Sk-A")
        let chat = "Emma 👩‍👧 loves the café\u{200D}, see you at 4 — 😀"
        #expect(SecretText.replacing(key, in: chat, with: "x") == chat)
        #expect(SecretText.replacing("café", in: chat, with: "x") == "Emma 👩‍👧 loves the x\u{200D}, see you at 4 — 😀")
        // Joiners inside an emoji sequence stay: only a match's span is replaced.
        #expect(SecretText.replacing("Emma", in: chat, with: "E") == "E 👩‍👧 loves the café\u{200D}, see you at 4 — 😀")
        let ascii = Data("{\"a\": \"no key here\"}".utf8)
        #expect(SecretScrubbing.scrub(ascii, secret: key) == ascii)
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
