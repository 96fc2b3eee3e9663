import AgentRuntime
import Crypto
package import Foundation
import Core

/// One request an eval run sends: the fixture, the unit (a feature, or `combined`) and the window it serves, and
/// the exact HTTP body the real client builds. Its file names are fixed: a reader answering requests by hand and the
/// recorded provider both rely on them.
package struct ExportedRequest: Sendable, Hashable {
    package let fixture: String
    /// The feature's name, or `combined`.
    package let unit: String
    /// 0-based window of the fixture's conversation.
    package let window: Int
    package let promptID: String
    package let promptVersion: Int
    /// The bytes the client sends (`ChatCompletionRequest.body(...).serializedData()`).
    package let body: Data
    /// Lowercase hex SHA-256 of `body`.
    package let sha256: String

    package init(fixture: String, unit: String, window: Int, promptID: String, promptVersion: Int, body: Data) {
        self.fixture = fixture
        self.unit = unit
        self.window = window
        self.promptID = promptID
        self.promptVersion = promptVersion
        self.body = body
        self.sha256 = Self.hex(body)
    }

    /// `<unit>@<version>.w<window>.<first 12 hex of the body's SHA-256>`.
    package var stem: String { "\(unit)@\(promptVersion).w\(window).\(sha256.prefix(12))" }
    /// The fixture's folder: its id, with anything but letters, digits, `.`, `_` and `-` replaced.
    package var folder: String { Self.folder(fixture) }
    package var requestPath: String { "\(folder)/\(stem).request.md" }
    package var answerPath: String { "\(folder)/\(stem).answer.json" }

    /// The stem of the re-ask sent after an invalid answer to this request: its own body hash after `.reask.`.
    func reaskStem(body: Data) -> String { "\(stem).reask.\(Self.hex(body).prefix(12))" }

    static func folder(_ fixture: String) -> String {
        let safe = String(fixture.unicodeScalars.map { scalar -> Character in
            let allowed = CharacterSet.alphanumerics.contains(scalar) && scalar.isASCII || "._-".unicodeScalars.contains(scalar)
            return allowed ? Character(scalar) : "_"
        })
        return safe.isEmpty || safe.hasPrefix(".") ? "_" + safe : safe
    }

    static func hex(_ data: Data) -> String {
        SHA256.hash(data: data).map { byte in
            let digits = String(byte, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }.joined()
    }

    /// The request as a human or a model-acting reader reads it: a header line, `## system`, each `## user` /
    /// `## assistant` message in order (an assistant message is a worked example, or the answer a re-ask corrects),
    /// then `## response_format` as pretty JSON.
    package static func markdown(body: Data, header: String) -> String {
        let json = (try? JSONValue.parse(body)) ?? .null
        var out = "# \(header)\n"
        for message in json["messages"]?.arrayValue ?? [] {
            let role = message["role"]?.stringValue ?? "unknown"
            let content = message["content"]?.stringValue ?? message["content"].map { $0.serialized(pretty: true) } ?? ""
            out += "\n## \(role)\n\n\(content)\n"
        }
        let format = json["response_format"] ?? .null
        out += "\n## response_format\n\n```json\n\(format.serialized(pretty: true))\n```\n"
        return out
    }

    var header: String { "fixture \(fixture) · \(unit) · window \(window) · \(promptID)@\(promptVersion)" }
}

/// Answers the client while requests are exported: records each body and returns the smallest answer the request's
/// schema accepts, so the real engine goes on to the next window exactly as it would with a model. While a nights
/// fixture is played (`Log.replay`), a request whose answer file exists is answered from it instead, so the next
/// night's request carries the state that answer made; a missing one is noted and the fixture stops at that night.
struct CapturingTransport: HTTPTransport {
    actor Log {
        private(set) var bodies: [Data] = []
        /// Where answers are read while replaying: the answers folder, the fixture's folder and `<unit>@<version>`.
        private var replay: (directory: URL, folder: String, unit: String)?
        /// The stems of this extraction's requests by parsed body, to name a re-ask's answer.
        private var stems: [JSONValue: String] = [:]
        private(set) var missing = false

        /// Starts one extraction: nothing recorded yet; `replay` answers from files (nil: the smallest answers).
        func start(replay: (directory: URL, folder: String, unit: String)?) {
            self.replay = replay
            bodies = []
            stems = [:]
            missing = false
        }

        func take() -> [Data] {
            defer { bodies = [] }
            return bodies
        }

        /// Records `body` (a re-ask is not one of the run's requests) and returns the answer's text.
        func answer(_ body: Data) -> String {
            let json = (try? JSONValue.parse(body)) ?? .null
            let hash = String(ExportedRequest.hex(body).prefix(12))
            var stem: String?
            if let original = Self.reaskOriginal(json), let first = stems[original] {
                stem = "\(first).reask.\(hash)"
            } else {
                bodies.append(body)
                if let replay {
                    stem = "\(replay.unit).w\(bodies.count - 1).\(hash)"
                    stems[json] = stem
                }
            }
            if let replay, let stem {
                let file = replay.directory.appendingPathComponent("\(replay.folder)/\(stem).answer.json")
                if let data = FileManager.default.contents(atPath: file.path), data.count <= RecordedAnswerBook.maxAnswerBytes {
                    return String(decoding: data, as: UTF8.self)
                }
                missing = true
            }
            return EmptyAnswer.content(forRequest: json)
        }

        /// The body a re-ask repeats: the same body less the answer and the correction appended to it.
        static func reaskOriginal(_ json: JSONValue) -> JSONValue? {
            guard case .object(var object) = json, let messages = object["messages"]?.arrayValue, messages.count >= 3,
                  messages.last?["role"]?.stringValue == "user", messages.dropLast().last?["role"]?.stringValue == "assistant" else { return nil }
            object["messages"] = .array(Array(messages.dropLast(2)))
            return .object(object)
        }
    }

    let log: Log

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let content = await log.answer(request.body)
        let model = (try? JSONValue.parse(request.body))?["model"]?.stringValue ?? "recorded"
        return RecordedAnswerBook.completion(content: content, model: model)
    }
}

/// The smallest instance of a strict JSON schema: nulls where allowed, empty arrays, the first enum value.
enum EmptyAnswer {
    static let schemaInPromptMarker = "matches this JSON Schema:\n"

    /// The schema comes from `response_format` (json_schema mode) or the end of the system message (json_object mode).
    static func content(forRequest body: JSONValue) -> String {
        var schema = body["response_format"]?["json_schema"]?["schema"]
        if schema == nil, let system = body["messages"]?[0]?["content"]?.stringValue,
           let range = system.range(of: schemaInPromptMarker, options: .backwards) {
            schema = try? JSONValue.parse(String(system[range.upperBound...]))
        }
        guard let schema else { return "{}" }
        return instance(schema, root: schema, depth: 0).serialized()
    }

    static func instance(_ schema: JSONValue, root: JSONValue, depth: Int) -> JSONValue {
        guard depth < 32 else { return .null }
        if let ref = schema["$ref"]?.stringValue, ref.hasPrefix("#/") {
            var target: JSONValue? = root
            for part in ref.dropFirst(2).split(separator: "/") { target = target?[String(part)] }
            return target.map { instance($0, root: root, depth: depth + 1) } ?? .null
        }
        if let options = schema["anyOf"]?.arrayValue ?? schema["oneOf"]?.arrayValue, let first = options.first {
            let nullable = options.first { $0["type"]?.stringValue == "null" }
            return instance(nullable ?? first, root: root, depth: depth + 1)
        }
        if let constant = schema["const"] { return constant }
        if let values = schema["enum"]?.arrayValue, let first = values.first { return values.contains(.null) ? .null : first }
        let types = schema["type"]?.stringValue.map { [$0] } ?? schema["type"]?.arrayValue?.compactMap(\.stringValue) ?? []
        if types.contains("null") { return .null }
        switch types.first {
        case "object":
            var object = JSONObject()
            let required = Set(schema["required"]?.arrayValue?.compactMap(\.stringValue) ?? [])
            for key in schema["properties"]?.objectValue?.keys ?? [] where required.contains(key) {
                object[key] = instance(schema["properties"]?[key] ?? .null, root: root, depth: depth + 1)
            }
            return .object(object)
        case "array":
            let count = Int(schema["minItems"]?.integerValue ?? 0)
            return .array(Array(repeating: instance(schema["items"] ?? .null, root: root, depth: depth + 1), count: min(count, 16)))
        case "string": return .string(String(repeating: "x", count: Int(min(schema["minLength"]?.integerValue ?? 0, 64))))
        case "integer": return .integer(schema["minimum"]?.integerValue ?? 0)
        case "number": return .number(schema["minimum"]?.doubleValue ?? 0)
        case "boolean": return .bool(false)
        default: return .null
        }
    }
}
