import Foundation
import JSONKit
import Logging

/// The Files and Batch endpoints of an OpenAI-compatible server: upload a JSONL file of requests, create a batch
/// over it, poll it, and download its output. Batches cost half as much and have no per-request rate limit; the
/// answers arrive within the completion window instead of at once.
public struct OpenAIBatchClient: Sendable {
    public let configuration: LLMConfiguration
    private let transport: any HTTPTransport
    private let sleep: @Sendable (Duration) async throws -> Void
    private let logger = Logger(label: "messageai.llm.batch")

    /// Uploads and downloads may be far bigger than a chat request: they get at least this long.
    static let fileTimeout: Duration = .seconds(300)
    /// A batch output file may hold 50,000 answers: far above the transport's cap for one chat answer.
    static let maxFileBytes = 1024 * 1024 * 1024

    public init(
        configuration: LLMConfiguration,
        transport: any HTTPTransport = AsyncHTTPClientTransport.shared,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.configuration = configuration
        self.transport = transport
        self.sleep = sleep
    }

    /// `POST /files` with purpose `batch`.
    public func uploadBatchFile(_ data: Data, filename: String) async throws -> OpenAIFileObject {
        var form = MultipartForm()
        form.field("purpose", "batch")
        form.file("file", filename: filename, contentType: "application/jsonl", data: data)
        let response = try await send("POST", "files", body: form.finished, contentType: form.contentType,
                                      timeout: max(configuration.requestTimeout, Self.fileTimeout))
        return try decode(response, "file", OpenAIFileObject.decode)
    }

    /// `GET /files/{file_id}/content`: the file's bytes.
    public func fileContent(_ fileID: String) async throws -> Data {
        try await send("GET", "files/\(try Self.pathComponent(fileID))/content", timeout: max(configuration.requestTimeout, Self.fileTimeout),
                       maxResponseBytes: Self.maxFileBytes).body
    }

    /// `POST /batches` for Chat Completions requests with the 24 hour window (the only one offered).
    public func createBatch(inputFileID: String, metadata: [String: String] = [:]) async throws -> BatchObject {
        var body: JSONObject = [
            "input_file_id": .string(inputFileID),
            "endpoint": "/v1/chat/completions",
            "completion_window": "24h",
        ]
        if !metadata.isEmpty {
            body["metadata"] = .object(JSONObject(metadata.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }))
        }
        let response = try await send("POST", "batches", body: JSONValue.object(body).serializedData(), contentType: "application/json",
                                      timeout: configuration.requestTimeout)
        return try decode(response, "batch", BatchObject.decode)
    }

    /// `GET /batches/{batch_id}`.
    public func batch(_ batchID: String) async throws -> BatchObject {
        let response = try await send("GET", "batches/\(try Self.pathComponent(batchID))", timeout: configuration.requestTimeout)
        return try decode(response, "batch", BatchObject.decode)
    }

    // MARK: HTTP

    /// Ids come from the server, but they go into a path: refuse anything that could change it.
    static func pathComponent(_ id: String) throws -> String {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-_."))
        guard !id.isEmpty, id.unicodeScalars.allSatisfy(allowed.contains), id != ".", id != ".." else {
            throw LLMError.invalidRequest("'\(id.prefix(80))' is not a valid file or batch id")
        }
        return id
    }

    func url(_ path: String) -> URL {
        var base = configuration.baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        return URL(string: base + "/" + path)!
    }

    /// One request with the configured retry policy for statuses and transport failures worth retrying.
    private func send(_ method: String, _ path: String, body: Data = Data(), contentType: String? = nil, timeout: Duration,
                      maxResponseBytes: Int? = nil) async throws -> HTTPResponse {
        var headers = ["Accept": "application/json"]
        if let contentType { headers["Content-Type"] = contentType }
        if let key = configuration.apiKey { headers["Authorization"] = "Bearer \(key)" }
        let request = HTTPRequest(method: method, url: url(path), headers: headers, body: body, timeout: timeout, maxResponseBytes: maxResponseBytes)
        let policy = configuration.retryPolicy
        var attempt = 0
        while true {
            attempt += 1
            let failure: LLMError
            var retryAfter: Duration?
            do {
                let response = try await transport.send(request)
                if (200..<300).contains(response.status) { return response }
                failure = httpError(response)
                retryAfter = RetryPolicy.retryAfter(headers: response.headers)
            } catch TransportError.timedOut(let limit) {
                failure = .timeout(limit)
            } catch TransportError.cancelled {
                throw LLMError.cancelled
            } catch is CancellationError {
                throw LLMError.cancelled
            } catch {
                failure = .transport(LLMError.excerpt("\(error)", hiding: configuration.apiKey))
            }
            guard failure.isRetryable, attempt < policy.maxAttempts else {
                throw attempt == 1 ? failure : LLMError.retriesExhausted(attempts: attempt, last: failure)
            }
            let wait = min(retryAfter ?? policy.backoff(afterAttempt: attempt), policy.maxRetryAfter)
            logger.debug("batch API retry scheduled", metadata: ["path": "\(path)", "attempt": "\(attempt)", "wait_ms": "\(wait.wholeMilliseconds)"])
            do { try await sleep(wait) } catch { throw LLMError.cancelled }
        }
    }

    private func httpError(_ response: HTTPResponse) -> LLMError {
        let text: String
        if let json = try? JSONValue.parse(response.body), let message = json["error"]?["message"]?.stringValue {
            text = message
        } else {
            text = String(decoding: response.body, as: UTF8.self)
        }
        let message = LLMError.excerpt(text, hiding: configuration.apiKey)
        return .http(status: response.status, message: message.isEmpty ? "(empty body)" : message, requestID: response.header("x-request-id"))
    }

    private func decode<T>(_ response: HTTPResponse, _ what: String, _ decoder: (JSONValue) throws -> T) throws -> T {
        let excerpt = LLMError.excerpt(String(decoding: response.body, as: UTF8.self), hiding: configuration.apiKey)
        do {
            return try decoder(try JSONValue.parse(response.body))
        } catch {
            throw LLMError.decoding("the \(what) object: \(error)", bodyExcerpt: excerpt)
        }
    }
}
