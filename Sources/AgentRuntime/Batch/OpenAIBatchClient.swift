package import Foundation
import Core
import Logging

/// The Files and Batch endpoints of an OpenAI-compatible server: upload a JSONL file of requests, create a batch
/// over it, poll it, and download its output. Batches cost half as much and have no per-request rate limit; the
/// answers arrive within the completion window instead of at once.
package struct OpenAIBatchClient: Sendable {
    package let configuration: LLMConfiguration
    private let transport: any HTTPTransport
    private let sleep: @Sendable (Duration) async throws -> Void
    private let logger = Logger(label: "messageai.llm.batch")

    /// Uploads and downloads may be far bigger than a chat request: they get at least this long.
    static let fileTimeout: Duration = .seconds(300)
    /// A batch output file may hold 50,000 answers: far above the transport's cap for one chat answer.
    static let maxFileBytes = 1024 * 1024 * 1024

    package init(
        configuration: LLMConfiguration,
        transport: any HTTPTransport = AsyncHTTPClientTransport.shared,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.configuration = configuration
        self.transport = transport
        self.sleep = sleep
    }

    /// `POST /files` with purpose `batch`. An upload is not idempotent: after a failure that may have happened on the
    /// server anyway (a timeout, a dropped connection, a 5xx), the file list is searched for this upload (same name
    /// and size) before it is sent again, so a lost answer never leaves a second copy. Give each upload a unique name.
    package func uploadBatchFile(_ data: Data, filename: String) async throws -> OpenAIFileObject {
        var form = MultipartForm()
        form.field("purpose", "batch")
        form.file("file", filename: filename, contentType: "application/jsonl", data: data)
        let timeout = max(configuration.requestTimeout, Self.fileTimeout)
        do {
            return try await create("files", body: form.finished, contentType: form.contentType, timeout: timeout, what: "file",
                                    decoder: OpenAIFileObject.decode) {
                try await listFiles(purpose: "batch").first { $0.filename == filename && $0.bytes == data.count }
            }
        } catch let error as LLMError {
            // The first call of a batch: a server without the Files/Batch API (llama.cpp, vLLM, Ollama) answers 404 or 405.
            guard case .http(let status, let message, let requestID) = error.underlying, [404, 405].contains(status) else { throw error }
            throw LLMError.http(status: status, message: message + "; the server \(TransportErrorText.server(configuration.baseURL)) "
                                + "has no Files/Batch API (POST /files): run the scan without --batch, or set OPENAI_BASE_URL to a server "
                                + "that has one (OpenAI's)", requestID: requestID)
        }
    }

    /// `GET /files?purpose=…`: the newest files first, one page (up to 10,000 by the API's limit).
    func listFiles(purpose: String) async throws -> [OpenAIFileObject] {
        let query = "files?purpose=\(try Self.pathComponent(purpose))&order=desc&limit=10000"
        let response = try await send("GET", query, timeout: configuration.requestTimeout)
        return try decode(response, "file list") { json in
            try (json["data"]?.arrayValue ?? []).map(OpenAIFileObject.decode)
        }
    }

    /// `GET /files/{file_id}/content`: the file's bytes.
    package func fileContent(_ fileID: String) async throws -> Data {
        try await send("GET", "files/\(try Self.pathComponent(fileID))/content", timeout: max(configuration.requestTimeout, Self.fileTimeout),
                       maxResponseBytes: Self.maxFileBytes).body
    }

    /// `POST /batches` for Chat Completions requests with the 24 hour window (the only one offered). Like an upload, a
    /// create is not retried blindly: after an ambiguous failure the batch list is searched for a batch over the same
    /// input file (each upload's id is unique) before creating again, so a lost answer never costs a second batch.
    package func createBatch(inputFileID: String, metadata: [String: String] = [:]) async throws -> BatchObject {
        var body: JSONObject = [
            "input_file_id": .string(inputFileID),
            "endpoint": "/v1/chat/completions",
            "completion_window": "24h",
        ]
        if !metadata.isEmpty {
            body["metadata"] = .object(JSONObject(metadata.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }))
        }
        return try await create("batches", body: JSONValue.object(body).serializedData(), contentType: "application/json",
                                timeout: configuration.requestTimeout, what: "batch", decoder: BatchObject.decode) {
            // A batch over this input file already exists: the lost answer's create did happen.
            try await listBatches().first { $0.inputFileID == inputFileID }
        }
    }

    /// `GET /batches`: the most recent batches (one page of 100).
    func listBatches() async throws -> [BatchObject] {
        let response = try await send("GET", "batches?limit=100", timeout: configuration.requestTimeout)
        return try decode(response, "batch list") { json in
            try (json["data"]?.arrayValue ?? []).map(BatchObject.decode)
        }
    }

    /// `GET /batches/{batch_id}`.
    package func batch(_ batchID: String) async throws -> BatchObject {
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

    /// A request that is safe to repeat (GET), with the shared retry loop.
    private func send(_ method: String, _ path: String, body: Data = Data(), contentType: String? = nil, timeout: Duration,
                      maxResponseBytes: Int? = nil) async throws -> HTTPResponse {
        let request = httpRequest(method, path, body: body, contentType: contentType, timeout: timeout, maxResponseBytes: maxResponseBytes)
        return try await retryLoop.run(path) { _ in try await attempt(request) }
    }

    /// A `POST` that creates something. Only failures that prove nothing was created (429, and 4xx in general, which
    /// are not retried) are safe to retry as they are; after any other failure `existing` is asked first, and the
    /// create is sent again only when it finds nothing.
    private func create<T: Sendable>(
        _ path: String, body: Data, contentType: String, timeout: Duration, what: String,
        decoder: @escaping (JSONValue) throws -> T, existing: () async throws -> T?
    ) async throws -> T {
        let request = httpRequest("POST", path, body: body, contentType: contentType, timeout: timeout)
        return try await retryLoop.run("POST \(path)") { number in
            if number > 1, let found = try await existing() {
                logger.info("a create whose answer was lost had succeeded; using it", metadata: ["path": "\(path)"])
                return .success(found)
            }
            switch try await attempt(request) {
            case .success(let response): return .success(try decode(response, what, decoder))
            case .failure(let error, let hint): return .failure(error, retryAfter: hint)
            }
        }
    }

    private var retryLoop: RetryLoop { RetryLoop(policy: configuration.retryPolicy, sleep: sleep, logger: logger) }

    private func httpRequest(_ method: String, _ path: String, body: Data, contentType: String?, timeout: Duration,
                             maxResponseBytes: Int? = nil) -> HTTPRequest {
        var headers = ["Accept": "application/json"]
        if let contentType { headers["Content-Type"] = contentType }
        if let key = configuration.apiKey { headers["Authorization"] = "Bearer \(key)" }
        return HTTPRequest(method: method, url: url(path), headers: headers, body: body, timeout: timeout, maxResponseBytes: maxResponseBytes)
    }

    /// One attempt: a 2xx response, or the failure with the server's retry hint.
    private func attempt(_ request: HTTPRequest) async throws -> AttemptOutcome<HTTPResponse> {
        do {
            // The batch calls wait in the same line as chat requests to this server.
            let limit = configuration.concurrencyLimit
            try await limit.acquire()
            let sent: HTTPResponse
            do {
                sent = try await configuration.circuitBreaker.send(request, via: transport)
                await limit.release()
            } catch {
                await limit.release()
                throw error
            }
            // Batch output files carry model text too: the key is scrubbed from them as from chat answers.
            let response = SecretScrubbing.scrub(sent, secret: configuration.apiKey)
            if (200..<300).contains(response.status) { return .success(response) }
            return .failure(httpError(response), retryAfter: RetryPolicy.retryAfter(headers: response.headers))
        } catch LLMError.serverUnavailable(let outage) {
            return .failure(.serverUnavailable(outage), retryAfter: nil)
        } catch TransportError.timedOut(let limit) {
            return .failure(.timeout(limit), retryAfter: nil)
        } catch TransportError.responseTooLarge(let limit) {
            // Not worth retrying: the same server would send the same oversized answer again.
            throw LLMError.decoding(TransportError.responseTooLarge(limit: limit).description, bodyExcerpt: "")
        } catch TransportError.cancelled {
            throw LLMError.cancelled
        } catch is CancellationError {
            throw LLMError.cancelled
        } catch {
            return .failure(.transport(LLMError.excerpt("\(error)", hiding: configuration.apiKey)), retryAfter: nil)
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
