import AgentRuntime
package import Extractors
package import Foundation
package import Core
import JobsKit
package import Evaluation

/// Paths, temporary folders and a fake model that answers from a fixture's labels.
package enum EvalTestSupport {
    package static var fixturesPath: String { RepositoryPaths.root.appendingPathComponent("evals/fixtures").path }
    package static var promptsPath: String { RepositoryPaths.root.appendingPathComponent("prompts").path }
    package static let apiKey = "sk-test-eval-not-a-real-key"

    /// The fixture a request is about: the one with the most of its messages in the last user message (an eval names
    /// the conversation neutrally, never by fixture id, and the prompt's worked example comes before).
    package static func fixture(of body: JSONValue, among fixtures: [Fixture]) -> Fixture? {
        // Every user message (a re-ask ends with its own), with the angle brackets the message block escapes read back.
        let users = body["messages"]?.arrayValue?.filter { $0["role"]?.stringValue == "user" }.compactMap { $0["content"]?.stringValue } ?? []
        guard !users.isEmpty else { return nil }
        let text = users.joined(separator: "\n").replacingOccurrences(of: "\\u003c", with: "<").replacingOccurrences(of: "\\u003e", with: ">")
        let scored = fixtures.map { fixture in
            (fixture, fixture.messages.count { text.contains(JSONValue.string($0.text).serialized()) })
        }
        guard let best = scored.max(by: { ($0.1, $1.0.id) < ($1.1, $0.0.id) }), best.1 > 0 else { return nil }
        return best.0
    }

    package static func temporaryDirectory(_ label: String = "eval") throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("jobs-\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    package static func realFixtures() throws -> [Fixture] { try FixtureLoader.load(path: fixturesPath) }

    /// A copy of the real fixtures plus one whose chat text and labels carry markup, to check report escaping.
    package static func fixturesWithMarkup() throws -> URL {
        let directory = try temporaryDirectory("fixtures")
        for name in try FileManager.default.contentsOfDirectory(atPath: fixturesPath) where name.hasSuffix(".yaml") {
            try FileManager.default.copyItem(atPath: fixturesPath + "/" + name, toPath: directory.appendingPathComponent(name).path)
        }
        try markupFixture.write(to: directory.appendingPathComponent("zz-markup.yaml"), atomically: true, encoding: .utf8)
        return directory
    }

    package static let markupFixture = """
        id: zz-markup
        description: Markup in chat text must reach the reports escaped.
        reference: {now: "2026-03-02T20:00:00-05:00", timezone: America/New_York, user: maria}
        participants:
          - {id: maria, name: Maria Lopez}
          - {id: dan, name: Dan Kim}
        messages:
          - {id: m1, sender: dan, sent_at: "2026-03-02T08:14:00-05:00", text: "<script>alert('x')</script> Bake sale Friday at 3 & bring \\"cookies\\""}
        expected:
          calendar_events:
            - {title: "<b>Bake sale</b>", date: 2026-03-06, time: "15:00", location: null, category: school, source: [m1]}
          decisions: []
          priority_messages: []
          rsvps: []
          deadlines: []
        """

    /// Options for a run against `server`, with the cache in `cache`.
    package static func options(fixtures: String, server: FakeOpenAIServer, cache: URL) -> EvalRunOptions {
        var options = EvalRunOptions()
        options.fixturesPath = fixtures
        options.promptsPath = promptsPath
        options.provider = .openai
        options.cacheDirectory = cache
        options.llm = LLMConfiguration(apiKey: apiKey, baseURL: server.baseURL)
        options.environment = ["OPENAI_BASE_URL": server.baseURL.absoluteString, "OPENAI_API_KEY": apiKey]
        return options
    }
}

/// Plays a model that has read the labels: it answers each request with the expected items of the fixture whose
/// messages the prompt carries (`EvalTestSupport.fixture(of:among:)`), in the feature's schema and the window's aliases.
package struct LabelledAnswers: Sendable {
    package let fixtures: [String: Fixture]
    /// Features answered with an empty list instead (so a run scores below 1).
    package var emptyFeatures: Set<String> = []
    /// (fixture, feature) pairs answered with schema-invalid JSON every time.
    package var invalid: Set<String> = []
    package var usage = FakeUsage(prompt: 100, completion: 20, cached: 40)

    package init(_ fixtures: [Fixture]) {
        self.fixtures = Dictionary(uniqueKeysWithValues: fixtures.map { ($0.id, $0) })
    }

    package func reply(_ request: RecordedRequest) -> ScriptedReply {
        guard let content = request.json.flatMap(content(for:)) else {
            return .error(status: 400, message: "LabelledAnswers: cannot tell the feature or fixture of this request")
        }
        return .chat(content: content, usage: usage)
    }

    /// The answer's JSON text for a request body; a combined request gets each of its features' answers.
    package func content(for body: JSONValue) -> String? {
        guard let feature = body["response_format"]?["json_schema"]?["name"]?.stringValue, let fixture = fixture(named: body) else {
            return nil
        }
        if invalid.contains("\(fixture.id)/\(feature)") { return #"{"not_the_schema": true}"# }
        func answer(_ feature: String) -> JSONValue { emptyFeatures.contains(feature) ? Self.empty(feature) : Self.answer(feature, fixture) }
        if let parts = body["response_format"]?["json_schema"]?["schema"]?["properties"]?.objectValue, feature == "combined" {
            return JSONValue.object(JSONObject(parts.keys.map { ($0, answer($0)) })).serialized()
        }
        return answer(feature).serialized()
    }

    private func fixture(named body: JSONValue) -> Fixture? {
        EvalTestSupport.fixture(of: body, among: Array(fixtures.values))
    }

    package static func empty(_ feature: String) -> JSONValue {
        [["calendar_events": "events", "priority_messages": "messages"][feature] ?? feature: []]
    }

    package static func answer(_ feature: String, _ fixture: Fixture) -> JSONValue {
        guard let input = try? FixtureConversation.input(fixture) else { return empty(feature) }
        let window = MessageWindow(messages: input.messages, participants: input.participants)
        func m(_ ids: [String]) -> JSONValue { .array(ids.compactMap { window.alias(ofMessage: $0) }.map(JSONValue.string)) }
        func p(_ id: String) -> JSONValue { window.alias(ofParticipant: id).map(JSONValue.string) ?? .null }
        func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        /// Evidence: the start of the first cited message, copied verbatim.
        func quote(_ ids: [String]) -> JSONValue {
            .string(String((fixture.messages.first { $0.id == ids.first }?.text ?? "").prefix(200)))
        }
        let e = fixture.expected
        switch feature {
        case "calendar_events":
            return ["events": .array(e.calendarEvents.map { item in
                ["title": .string(item.title), "date": .string(item.date.iso), "time": text(item.time?.iso), "end_time": nil,
                 "location": text(item.location), "description": "", "category": .string(item.category.rawValue),
                 "confidence": 0.9, "date_phrase": nil, "evidence": quote(item.source), "source_message_ids": m(item.source)]
            })]
        case "decisions":
            return ["decisions": .array(e.decisions.map { item in
                ["decision": .string(item.decision), "category": .string(item.category.rawValue), "decided_by": nil,
                 "deadline": nil, "date_phrase": nil, "evidence": quote(item.source), "source_message_ids": m(item.source)]
            })]
        case "priority_messages":
            return ["messages": .array(e.priorityMessages.map { item in
                ["message_id": m([item.message]).arrayValue?.first ?? "m1", "priority": .string(item.priority.rawValue),
                 "reason": "labelled", "action_required": .bool(item.actionRequired), "evidence": quote([item.message])]
            })]
        case "rsvps":
            let user = fixture.reference.user
            let userMessage = fixture.messages.last { $0.sender == user }?.id
            return ["rsvps": .array(e.rsvps.map { item in
                var responses: [JSONValue] = []
                if item.status == .responded, let response = item.response, let message = userMessage ?? item.source.first {
                    responses.append(["participant_id": p(user), "response": .string(response.rawValue),
                                      "message_id": m([message]).arrayValue?.first ?? "m1"])
                }
                return ["event": .string(item.event), "event_date": .string(item.eventDate.iso), "deadline": text(item.deadline?.iso),
                        "requested_by": p(item.requestedBy), "date_phrase": nil, "deadline_phrase": nil, "evidence": quote(item.source),
                        "source_message_ids": m(item.source), "responses": .array(responses)]
            })]
        case "deadlines":
            return ["deadlines": .array(e.deadlines.map { item in
                ["task": .string(item.task), "deadline": .string(item.deadline.iso), "time": nil,
                 "category": .string(item.category.rawValue), "priority": "medium", "details": nil, "date_phrase": nil,
                 "evidence": quote(item.source), "source_message_ids": m(item.source)]
            })]
        default:
            return empty(feature)
        }
    }
}

/// Runs the built CLI (`SpawnedProcess`: output in files, a bounded wait) and keeps how it ended.
package struct EvalChild {
    package let status: Int32
    /// The child outlived the timeout and was terminated.
    package let timedOut: Bool
    package let stdout: String
    package let stderr: String

    package static func run(_ arguments: [String], timeout: Duration = .seconds(120), environment: [String: String] = [:]) async throws -> EvalChild {
        let child = try SpawnedProcess(ScanHarness.executable, arguments: arguments, adding: environment)
        do {
            let termination = try await child.waitForExit(timeout: Double(timeout.components.seconds))
            return EvalChild(status: termination.code, timedOut: false, stdout: child.stdout, stderr: child.stderr)
        } catch is SpawnedProcess.TimedOut {
            return EvalChild(status: -1, timedOut: true, stdout: child.stdout, stderr: child.stderr)
        }
    }
}
