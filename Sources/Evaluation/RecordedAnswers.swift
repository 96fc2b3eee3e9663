import AgentRuntime
package import Foundation
import Core

/// `eval --provider recorded --answers DIR`: each request of the run is answered from the file named after it
/// (`ExportedRequest.answerPath`), wrapped in a Chat Completions response, so the real client, JSON decode, schema
/// validation, the re-ask, grounding, dates and scoring all run as with a live model.
///
/// An answer named for the same fixture, unit and window but another prompt version or body hash is stale: listed,
/// never used. A missing answer is a 404 to the client, so the extraction fails and is counted. A re-ask (after an
/// invalid answer) has its own body: its answer is `<stem>.reask.<hash12>.answer.json`; when that is missing its
/// request is written under `DIR/missing/` for someone to answer.
actor RecordedAnswerBook {
    package let directory: URL
    private let byHash: [String: ExportedRequest]
    /// Requests by parsed body, to find the request a re-ask repeats (its body less the last two messages).
    private let byBody: [JSONValue: ExportedRequest]
    private var answered: Set<String> = []
    private var missing: Set<String> = []
    private var reaskMissing: Set<String> = []
    private var unmatched = 0
    package let stale: [String]
    package let expected: Int

    /// Answer files larger than this are refused (a model's answer is a few kilobytes).
    static let maxAnswerBytes = 4 << 20

    package init(directory: URL, plan: RequestPlan) {
        self.directory = directory
        byHash = Dictionary(plan.requests.map { ($0.sha256, $0) }) { first, _ in first }
        byBody = Dictionary(plan.requests.compactMap { request in (try? JSONValue.parse(request.body)).map { ($0, request) } }) { first, _ in first }
        stale = Self.staleAnswers(in: directory, plan: plan)
        expected = plan.requests.count
    }

    package var summary: RecordedAnswersSummary {
        RecordedAnswersSummary(answersDir: directory.path, expected: expected, answered: answered.count, missing: missing.sorted(),
                               stale: stale, reaskMissing: reaskMissing.sorted(), unmatched: unmatched)
    }

    func respond(to request: HTTPRequest) -> HTTPResponse {
        let sha = ExportedRequest.hex(request.body)
        let model = (try? JSONValue.parse(request.body))?["model"]?.stringValue ?? "recorded"
        if let exported = byHash[sha] {
            return answer(at: exported.answerPath, for: exported.requestPath, alternatives: [], model: model) { _ = missing.insert(exported.answerPath) }
        }
        guard let original = reaskOriginal(request.body) else {
            unmatched += 1
            return Self.failure("recorded answers: this request matches no exported request of the run (a bug: please report it)")
        }
        let stem = original.reaskStem(body: request.body)
        let path = "\(original.folder)/\(stem).answer.json"
        return answer(at: path, for: "missing/\(original.folder)/\(stem).request.md", alternatives: ["missing/\(path)"], model: model) {
            let file = directory.appendingPathComponent("missing/\(original.folder)/\(stem).request.md")
            let header = original.header + " · re-ask after an invalid answer"
            try? FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try? Data(ExportedRequest.markdown(body: request.body, header: header).utf8).write(to: file, options: .atomic)
            reaskMissing.insert("missing/\(original.folder)/\(stem).request.md")
        }
    }

    private func answer(at path: String, for requestPath: String, alternatives: [String], model: String, ifMissing: () -> Void) -> HTTPResponse {
        for candidate in [path] + alternatives {
            let file = directory.appendingPathComponent(candidate)
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: file.path) else { continue }
            if let size = attributes[.size] as? Int, size > Self.maxAnswerBytes {
                return Self.failure("recorded answers: \(candidate): the answer file is over \(Self.maxAnswerBytes) bytes")
            }
            guard let data = FileManager.default.contents(atPath: file.path) else { continue }
            answered.insert(candidate)
            return Self.completion(content: String(decoding: data, as: UTF8.self), model: model)
        }
        ifMissing()
        return Self.failure("no recorded answer for request \(requestPath) (expected \(path) in \(directory.path))")
    }

    /// The book's own words for a request it could not answer (a missing answer file, an oversized one), from the error
    /// the client made of its 404; nil for any other error. Reports say this, not "HTTP 404 from the LLM server".
    package static func problem(_ error: any Error) -> String? {
        guard case .http(404, let message, _)? = error as? LLMError,
              message.hasPrefix("no recorded answer for request ") || message.hasPrefix("recorded answers: ") else { return nil }
        return message
    }

    /// Whether an error message (`problem`) says a recorded answer is missing.
    static func isMissingAnswer(_ message: String) -> Bool { message.hasPrefix("no recorded answer for request ") }

    /// The exported request a re-ask repeats: the same body with the answer and the correction appended.
    private func reaskOriginal(_ body: Data) -> ExportedRequest? {
        guard case .object(var object)? = try? JSONValue.parse(body),
              let messages = object["messages"]?.arrayValue, messages.count >= 3 else { return nil }
        object["messages"] = .array(Array(messages.dropLast(2)))
        return byBody[.object(object)]
    }

    /// Answer files of the fixtures, units and windows of the plan that belong to none of its requests.
    static func staleAnswers(in directory: URL, plan: RequestPlan) -> [String] {
        let current = Set(plan.requests.map { "\($0.folder)/\($0.stem)" })
        let slots = Set(plan.requests.map { "\($0.folder)/\($0.unit)@w\($0.window)" })
        var stale: [String] = []
        for root in ["", "missing/"] {
            let base = directory.appendingPathComponent(root)
            for folder in (try? FileManager.default.contentsOfDirectory(atPath: base.path)) ?? [] where folder != "missing" {
                for name in (try? FileManager.default.contentsOfDirectory(atPath: base.appendingPathComponent(folder).path)) ?? [] {
                    guard let parsed = parse(name) else { continue }
                    if current.contains("\(folder)/\(parsed.stem)") { continue }
                    if slots.contains("\(folder)/\(parsed.unit)@w\(parsed.window)") { stale.append("\(root)\(folder)/\(name)") }
                }
            }
        }
        return stale.sorted()
    }

    /// `<unit>@<version>.w<window>.<hash12>[.reask.<hash12>].answer.json` → its request stem, unit and window.
    static func parse(_ name: String) -> (stem: String, unit: String, window: Int)? {
        guard name.hasSuffix(".answer.json") else { return nil }
        var base = String(name.dropLast(".answer.json".count))
        if let reask = base.range(of: ".reask.") { base = String(base[..<reask.lowerBound]) }
        let parts = base.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 3, let at = parts[0].lastIndex(of: "@"), parts[parts.count - 2].hasPrefix("w"),
              let window = Int(parts[parts.count - 2].dropFirst()) else { return nil }
        return (base, String(parts[0][..<at]), window)
    }

    /// A Chat Completions response carrying `content`, as a model server sends it.
    static func completion(content: String, model: String) -> HTTPResponse {
        let body: JSONValue = [
            "id": "chatcmpl-recorded",
            "object": "chat.completion",
            "created": 0,
            "model": .string(model),
            "choices": [["index": 0, "message": ["role": "assistant", "content": .string(content)], "finish_reason": "stop"]],
        ]
        return HTTPResponse(status: 200, headers: ["content-type": "application/json"], body: body.serializedData())
    }

    /// A 404 with an OpenAI-style error: the client does not retry it, and the extraction fails with this message.
    static func failure(_ message: String) -> HTTPResponse {
        let body: JSONValue = ["error": ["message": .string(message), "type": "recorded_answer_missing"]]
        return HTTPResponse(status: 404, headers: ["content-type": "application/json"], body: body.serializedData())
    }
}

/// The HTTP seam the recorded provider plugs in at; every request it answers counts as a cache hit (nothing is paid).
struct RecordedAnswersTransport: HTTPTransport {
    let book: RecordedAnswerBook
    let stats: CacheStats

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        await stats.recordHit()
        return await book.respond(to: request)
    }
}

/// What a recorded run found in its answers folder, written to the report (`recorded_answers`).
package struct RecordedAnswersSummary: Sendable, Hashable, Codable {
    var answersDir: String
    /// Requests of the run (re-asks not included).
    package var expected: Int
    /// Answer files used.
    package var answered: Int
    /// Answer files the run needed and did not find (each a failed extraction).
    package var missing: [String]
    /// Answer files for the run's fixtures, units and windows recorded for another prompt version or body: not used.
    package var stale: [String]
    /// Re-ask requests with no answer, written under the answers folder for someone to answer.
    package var reaskMissing: [String]
    /// Requests that matched nothing exported (should be 0).
    package var unmatched: Int

    enum CodingKeys: String, CodingKey {
        case expected, answered, missing, stale, unmatched
        case answersDir = "answers_dir"
        case reaskMissing = "reask_missing"
    }

    /// Lines for the text and Markdown reports.
    package var lines: [String] {
        var lines = ["recorded answers from \(answersDir): \(answered) used for \(expected) requests; \(missing.count) missing, "
                     + "\(stale.count) stale (other prompt version or request, not used), \(reaskMissing.count) re-asks unanswered"]
        for path in missing.prefix(20) { lines.append("  missing: \(path)") }
        if missing.count > 20 { lines.append("  ... \(missing.count - 20) more missing in report.json") }
        for path in stale.prefix(20) { lines.append("  stale: \(path)") }
        if stale.count > 20 { lines.append("  ... \(stale.count - 20) more stale in report.json") }
        for path in reaskMissing.prefix(20) {
            lines.append("  re-ask to answer: \(path) (write its answer beside it as .answer.json and re-run)")
        }
        if unmatched > 0 { lines.append("  \(unmatched) requests matched no exported request") }
        return lines
    }
}
