package import Foundation
package import Core
import NIOConcurrencyHelpers

/// The Files and Batch endpoints of the fake server: `POST /v1/files` (multipart), `GET /v1/files/{id}`,
/// `GET /v1/files/{id}/content`, `GET /v1/files` (list), `POST /v1/batches`, `GET /v1/batches/{id}`, `GET /v1/batches` (list).
///
/// Each line of a batch is answered by the server's fallback handler as if it were a Chat Completions request, so
/// the per-feature scripted answers of synchronous tests work unchanged. Answers are rendered when the batch is
/// created; the lifecycle decides when they become visible: at once, or when a test calls `complete`.
package final class FakeBatchEndpoints: Sendable {
    package enum Lifecycle: Sendable {
        /// A new batch is `completed` with its output at once.
        case completeAtOnce
        /// A new batch stays `in_progress` until `complete` or `end`.
        case holdInProgress
    }

    package struct UploadedFile: Sendable {
        package let id: String
        package let filename: String
        package let purpose: String
        /// The file part's own `Content-Type`.
        package let contentType: String?
        package let content: Data
    }

    package struct Batch: Sendable {
        package let id: String
        package let inputFileID: String
        package let endpoint: String
        package let completionWindow: String
        package let metadata: JSONValue
        package fileprivate(set) var status: String
        package fileprivate(set) var outputFileID: String?
        package fileprivate(set) var errorFileID: String?
        fileprivate var total: Int
        fileprivate var outputLines: [JSONValue]
        fileprivate var errorLines: [JSONValue]
        fileprivate var errors: [String] = []
        fileprivate var finished: Bool { ["completed", "expired", "cancelled", "failed"].contains(status) }
    }

    private struct State {
        var lifecycle: Lifecycle
        var files: [UploadedFile] = []
        var batches: [Batch] = []
        var sequence = 0
        var rejectCreates: String?
        /// Creates (uploads and batches) still to be applied and then answered with a 500, as if the answer was lost.
        var loseAnswers = 0
        /// Creates still to be refused with a 503 before they take effect (with this retry-after, if any).
        var refuseCreates = 0
        var refuseRetryAfter: String?
        /// Answer every Files and Batch request with a 404, as a server without that API does (llama.cpp, vLLM).
        var absent = false
    }

    private let state: NIOLockedValueBox<State>

    package init(lifecycle: Lifecycle = .completeAtOnce) {
        state = NIOLockedValueBox(State(lifecycle: lifecycle))
    }

    package func setLifecycle(_ lifecycle: Lifecycle) { state.withLockedValue { $0.lifecycle = lifecycle } }
    /// Makes the server one without the Files and Batch API: every such request gets a 404, as llama.cpp answers.
    package func remove() { state.withLockedValue { $0.absent = true } }
    /// While set, `POST /v1/batches` answers 400 with this message (a quota or validation refusal).
    package func rejectCreates(_ message: String?) { state.withLockedValue { $0.rejectCreates = message } }
    /// The next `count` creates (`POST /v1/files` and `POST /v1/batches`) take effect, but their answer is a 500: the
    /// client cannot tell that they succeeded.
    package func loseAnswers(toNextCreates count: Int) { state.withLockedValue { $0.loseAnswers = count } }
    /// The next `count` creates are answered 503 and do not take effect (an overloaded proxy in front of the API).
    package func refuseNextCreates(_ count: Int, retryAfter: String? = nil) {
        state.withLockedValue {
            $0.refuseCreates = count
            $0.refuseRetryAfter = retryAfter
        }
    }
    /// Every file uploaded or produced, in order.
    package var files: [UploadedFile] { state.withLockedValue { $0.files } }
    package var uploads: [UploadedFile] { files.filter { $0.purpose == "batch" } }
    package var batches: [Batch] { state.withLockedValue { $0.batches } }

    /// Completes held batches (all, or one): their rendered answers become the output and error files.
    package func complete(_ batchID: String? = nil) {
        state.withLockedValue { state in
            for index in state.batches.indices where !state.batches[index].finished && (batchID == nil || state.batches[index].id == batchID) {
                Self.finish(&state, index, status: "completed")
            }
        }
    }

    /// Ends held batches without output: `expired`, `cancelled` or `failed` (with an error naming line 1).
    package func end(_ batchID: String? = nil, status: String) {
        state.withLockedValue { state in
            for index in state.batches.indices where !state.batches[index].finished && (batchID == nil || state.batches[index].id == batchID) {
                if status == "failed" { state.batches[index].errors = ["the fake server was told to fail this batch"] }
                state.batches[index].outputLines = []
                state.batches[index].errorLines = []
                Self.finish(&state, index, status: status)
            }
        }
    }

    private static func finish(_ state: inout State, _ index: Int, status: String) {
        let batch = state.batches[index]
        state.batches[index].status = status
        if !batch.outputLines.isEmpty {
            state.batches[index].outputFileID = addFile(&state, "batch_\(batch.id)_output.jsonl", purpose: "batch_output", lines: batch.outputLines)
        }
        if !batch.errorLines.isEmpty {
            state.batches[index].errorFileID = addFile(&state, "batch_\(batch.id)_error.jsonl", purpose: "batch_output", lines: batch.errorLines)
        }
    }

    private static func addFile(_ state: inout State, _ name: String, purpose: String, lines: [JSONValue]) -> String {
        state.sequence += 1
        let id = "file-fake\(state.sequence)"
        let content = Data(lines.map { $0.serialized() + "\n" }.joined().utf8)
        state.files.append(UploadedFile(id: id, filename: name, purpose: purpose, contentType: "application/jsonl", content: content))
        return id
    }

    // MARK: Routing

    /// The reply for a Files or Batch request, or nil when the path is neither (the server then answers as before).
    func reply(to request: RecordedRequest, chat: (@Sendable (RecordedRequest) -> ScriptedReply)?) -> ScriptedReply? {
        let path = String(request.path.split(separator: "?", maxSplits: 1).first ?? "")
        let parts = path.split(separator: "/").map(String.init)
        guard parts.count >= 2, parts[0] == "v1", parts[1] == "files" || parts[1] == "batches" else { return nil }
        if state.withLockedValue({ $0.absent }) { return .error(status: 404, message: "File Not Found", type: "not_found_error") }
        switch (request.method, parts.count, parts[1]) {
        case ("POST", 2, _) where refusing(): return refusal()
        case ("POST", 2, "files"): return losingAnswer(upload(request))
        case ("GET", 2, "files"): return fileList(purpose: Self.query("purpose", in: request.path))
        case ("GET", 2, "batches"): return .json(["object": "list", "data": .array(batches.reversed().map(Self.json)), "has_more": false])
        case ("GET", 3, "files"): return fileObject(parts[2])
        case ("GET", 4, "files") where parts[3] == "content": return fileContent(parts[2])
        case ("POST", 2, "batches"): return losingAnswer(createBatch(request, chat: chat))
        case ("GET", 3, "batches"): return batchObject(parts[2])
        default: return .error(status: 404, message: "FakeBatchEndpoints: no route for \(request.method) \(path)")
        }
    }

    private func upload(_ request: RecordedRequest) -> ScriptedReply {
        let form: [MultipartPart]
        do {
            form = try MultipartPart.parse(request.body, contentType: request.header("content-type") ?? "")
        } catch {
            return .error(status: 400, message: "POST /v1/files: \(error)")
        }
        guard let purpose = form.first(where: { $0.name == "purpose" }).map({ String(decoding: $0.body, as: UTF8.self) }) else {
            return .error(status: 400, message: "POST /v1/files: the form has no 'purpose' field")
        }
        guard let file = form.first(where: { $0.name == "file" }), let filename = file.filename else {
            return .error(status: 400, message: "POST /v1/files: the form has no 'file' part with a filename")
        }
        guard ["assistants", "batch", "fine-tune", "vision", "user_data", "evals"].contains(purpose) else {
            return .error(status: 400, message: "POST /v1/files: unknown purpose '\(purpose)'")
        }
        let uploaded = state.withLockedValue { state -> UploadedFile in
            state.sequence += 1
            let uploaded = UploadedFile(id: "file-fake\(state.sequence)", filename: filename, purpose: purpose, contentType: file.contentType, content: file.body)
            state.files.append(uploaded)
            return uploaded
        }
        return .json(Self.json(uploaded))
    }

    private func refusing() -> Bool {
        state.withLockedValue { state in
            guard state.refuseCreates > 0 else { return false }
            state.refuseCreates -= 1
            return true
        }
    }

    private func refusal() -> ScriptedReply {
        let headers = state.withLockedValue { $0.refuseRetryAfter }.map { ["retry-after": $0] } ?? [:]
        return .error(status: 503, message: "upstream unavailable", type: "server_error", headers: headers)
    }

    /// A 500 instead of `reply` while answers are to be lost (the create itself already happened).
    private func losingAnswer(_ reply: ScriptedReply) -> ScriptedReply {
        let lose = state.withLockedValue { state -> Bool in
            guard state.loseAnswers > 0 else { return false }
            state.loseAnswers -= 1
            return true
        }
        return lose ? .error(status: 500, message: "the server failed while answering", type: "server_error") : reply
    }

    private func fileList(purpose: String?) -> ScriptedReply {
        let files = state.withLockedValue { $0.files }.filter { purpose == nil || $0.purpose == purpose }
        return .json(["object": "list", "data": .array(files.reversed().map(Self.json)), "has_more": false])
    }

    private static func query(_ name: String, in path: String) -> String? {
        guard let query = path.split(separator: "?", maxSplits: 1).dropFirst().first else { return nil }
        for pair in query.split(separator: "&") where pair.hasPrefix("\(name)=") {
            return String(pair.dropFirst(name.count + 1))
        }
        return nil
    }

    private func fileObject(_ id: String) -> ScriptedReply {
        guard let file = state.withLockedValue({ $0.files.first { $0.id == id } }) else { return .error(status: 404, message: "no file \(id)") }
        return .json(Self.json(file))
    }

    private func fileContent(_ id: String) -> ScriptedReply {
        guard let file = state.withLockedValue({ $0.files.first { $0.id == id } }) else { return .error(status: 404, message: "no file \(id)") }
        return .status(200, body: String(decoding: file.content, as: UTF8.self), headers: ["Content-Type": "application/octet-stream"])
    }

    private func batchObject(_ id: String) -> ScriptedReply {
        guard let batch = state.withLockedValue({ $0.batches.first { $0.id == id } }) else { return .error(status: 404, message: "no batch \(id)") }
        return .json(Self.json(batch))
    }

    private func createBatch(_ request: RecordedRequest, chat: (@Sendable (RecordedRequest) -> ScriptedReply)?) -> ScriptedReply {
        if let message = state.withLockedValue({ $0.rejectCreates }) { return .error(status: 400, message: message) }
        guard let body = request.json, let inputFileID = body["input_file_id"]?.stringValue else {
            return .error(status: 400, message: "POST /v1/batches: input_file_id is required")
        }
        guard body["endpoint"]?.stringValue == "/v1/chat/completions" else {
            return .error(status: 400, message: "POST /v1/batches: the fake serves only endpoint /v1/chat/completions")
        }
        guard body["completion_window"]?.stringValue == "24h" else {
            return .error(status: 400, message: "POST /v1/batches: completion_window must be 24h")
        }
        guard let input = state.withLockedValue({ $0.files.first { $0.id == inputFileID } }), input.purpose == "batch" else {
            return .error(status: 400, message: "POST /v1/batches: no file \(inputFileID) with purpose batch")
        }
        var output: [JSONValue] = []
        var errors: [JSONValue] = []
        let text = String(decoding: input.content, as: UTF8.self)
        for (number, line) in text.split(separator: "\n").enumerated() {
            guard let json = try? JSONValue.parse(String(line)), let customID = json["custom_id"]?.stringValue, let lineBody = json["body"],
                  json["url"]?.stringValue == "/v1/chat/completions", json["method"]?.stringValue == "POST" else {
                return .error(status: 400, message: "POST /v1/batches: input file line \(number + 1) is not a valid request line")
            }
            let (line, failed) = answer(customID: customID, body: lineBody, chat: chat)
            if failed { errors.append(line) } else { output.append(line) }
        }
        let batch = state.withLockedValue { state -> Batch in
            state.sequence += 1
            let batch = Batch(
                id: "batch_fake\(state.sequence)", inputFileID: inputFileID, endpoint: "/v1/chat/completions", completionWindow: "24h",
                metadata: body["metadata"] ?? .null, status: "in_progress", total: output.count + errors.count,
                outputLines: output, errorLines: errors)
            state.batches.append(batch)
            if state.lifecycle == .completeAtOnce { Self.finish(&state, state.batches.count - 1, status: "completed") }
            return state.batches[state.batches.count - 1]
        }
        return .json(Self.json(batch))
    }

    /// One output line: the chat handler's reply to the line's body, as `{"id", "custom_id", "response", "error"}`.
    private func answer(customID: String, body: JSONValue, chat: (@Sendable (RecordedRequest) -> ScriptedReply)?) -> (JSONValue, failed: Bool) {
        let sequence = state.withLockedValue { state -> Int in
            state.sequence += 1
            return state.sequence
        }
        let synthetic = RecordedRequest(
            index: sequence, method: "POST", path: "/v1/chat/completions", headers: ["content-type": "application/json"],
            body: body.serializedData(), json: body, wasChunked: false, receivedAt: ContinuousClock.now)
        var reply = chat?(synthetic) ?? .error(status: 500, message: "FakeBatchEndpoints: the server has no fallback to answer batch lines")
        while true {
            if case .delay(_, let then) = reply { reply = then } else if case .held(_, let then) = reply { reply = then } else { break }
        }
        let id: JSONValue = .string("batch_req_fake\(sequence)")
        switch reply.render(sequence: sequence, model: body["model"]?.stringValue ?? "fake-model") {
        case .reset:
            return (["id": id, "custom_id": .string(customID), "response": nil,
                     "error": ["code": "server_error", "message": "the request failed"]], true)
        case .response(let status, _, let data):
            let parsed = (try? JSONValue.parse(data)) ?? .string(String(decoding: data, as: UTF8.self))
            let response: JSONValue = ["status_code": .integer(Int64(status)), "request_id": .string("req_fake_batch\(sequence)"), "body": parsed]
            return (["id": id, "custom_id": .string(customID), "response": response, "error": nil], !(200..<300).contains(status))
        }
    }

    // MARK: JSON

    private static func json(_ file: UploadedFile) -> JSONValue {
        ["id": .string(file.id), "object": "file", "bytes": .integer(Int64(file.content.count)), "created_at": 1_767_225_600,
         "filename": .string(file.filename), "purpose": .string(file.purpose), "status": "processed"]
    }

    private static func json(_ batch: Batch) -> JSONValue {
        var object: JSONObject = [
            "id": .string(batch.id), "object": "batch", "endpoint": .string(batch.endpoint),
            "input_file_id": .string(batch.inputFileID), "completion_window": .string(batch.completionWindow),
            "status": .string(batch.status), "created_at": 1_767_225_600,
            "in_progress_at": 1_767_225_601, "expires_at": 1_767_312_000,
            "request_counts": ["total": .integer(Int64(batch.total)),
                               "completed": .integer(Int64(batch.status == "completed" ? batch.outputLines.count : 0)),
                               "failed": .integer(Int64(batch.status == "completed" ? batch.errorLines.count : 0))],
            "metadata": batch.metadata,
        ]
        // The spec types these as plain strings / an object: absent, not null, until there is one.
        if let id = batch.outputFileID { object["output_file_id"] = .string(id) }
        if let id = batch.errorFileID { object["error_file_id"] = .string(id) }
        if !batch.errors.isEmpty {
            object["errors"] = ["object": "list", "data": .array(batch.errors.map { ["code": "failed", "message": .string($0), "param": nil, "line": 1] })]
        }
        if batch.status == "completed" { object["completed_at"] = 1_767_229_200 }
        return .object(object)
    }
}

/// One part of a `multipart/form-data` body.
struct MultipartPart {
    var name: String
    var filename: String?
    var contentType: String?
    var body: Data

    struct Malformed: Error, CustomStringConvertible { let description: String }

    static func parse(_ body: Data, contentType: String) throws -> [MultipartPart] {
        guard contentType.lowercased().hasPrefix("multipart/form-data"),
              let boundaryParameter = contentType.components(separatedBy: ";").map({ $0.trimmingCharacters(in: .whitespaces) })
                .first(where: { $0.lowercased().hasPrefix("boundary=") }) else {
            throw Malformed(description: "Content-Type '\(contentType)' is not multipart/form-data with a boundary")
        }
        let boundary = String(boundaryParameter.dropFirst("boundary=".count)).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        let delimiter = Data("--\(boundary)".utf8)
        guard let first = body.range(of: delimiter) else { throw Malformed(description: "no boundary '\(boundary)' in the body") }
        var parts: [MultipartPart] = []
        var cursor = first.upperBound
        while true {
            if body[cursor...].starts(with: Data("--".utf8)) { return parts }
            guard body[cursor...].starts(with: Data("\r\n".utf8)) else { throw Malformed(description: "boundary not followed by CRLF") }
            let start = cursor + 2
            guard let next = body.range(of: Data("\r\n".utf8) + delimiter, in: start..<body.endIndex) else {
                throw Malformed(description: "part \(parts.count + 1) has no closing boundary")
            }
            parts.append(try part(body[start..<next.lowerBound], number: parts.count + 1))
            cursor = next.upperBound
        }
    }

    private static func part(_ data: Data, number: Int) throws -> MultipartPart {
        guard let split = data.range(of: Data("\r\n\r\n".utf8)) else { throw Malformed(description: "part \(number) has no header end") }
        var name: String?, filename: String?, contentType: String?
        for line in String(decoding: data[data.startIndex..<split.lowerBound], as: UTF8.self).components(separatedBy: "\r\n") {
            let lower = line.lowercased()
            if lower.hasPrefix("content-disposition:") {
                name = parameter("name", in: line)
                filename = parameter("filename", in: line)
            } else if lower.hasPrefix("content-type:") {
                contentType = line.dropFirst("content-type:".count).trimmingCharacters(in: .whitespaces)
            }
        }
        guard let name else { throw Malformed(description: "part \(number) has no Content-Disposition name") }
        return MultipartPart(name: name, filename: filename, contentType: contentType, body: Data(data[split.upperBound...]))
    }

    private static func parameter(_ key: String, in header: String) -> String? {
        for piece in header.components(separatedBy: ";").dropFirst() {
            let pair = piece.trimmingCharacters(in: .whitespaces)
            guard pair.hasPrefix("\(key)=") else { continue }
            return String(pair.dropFirst(key.count + 1)).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        return nil
    }
}
