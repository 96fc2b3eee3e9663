import Foundation
import Synchronization
import Core
package import Logging

/// Sends Chat Completions requests to one OpenAI-compatible provider, retrying what is worth retrying.
package struct OpenAIClient: ChatCompleting {
    package let configuration: LLMConfiguration
    private let transport: any HTTPTransport
    private let sleep: @Sendable (Duration) async throws -> Void
    private let logger: Logger
    /// Every attempt holds a slot of this limit while it is on the wire (not while it waits to retry).
    package let concurrency: ServerConcurrencyLimit
    /// Every attempt passes this server's breaker: after a run of failures it refuses them until a probe succeeds.
    package let breaker: CircuitBreaker

    /// - Parameters:
    ///   - sleep: waits between attempts; replaceable so tests can observe waits.
    ///   - concurrency: nil shares the process's limit for the configuration's server.
    ///   - breaker: nil shares the process's circuit breaker for the configuration's server.
    package init(
        configuration: LLMConfiguration,
        transport: any HTTPTransport = AsyncHTTPClientTransport.shared,
        logger: Logger = Logger(label: "messageai.llm"),
        concurrency: ServerConcurrencyLimit? = nil,
        breaker: CircuitBreaker? = nil,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.configuration = configuration
        self.transport = transport
        self.logger = logger
        self.concurrency = concurrency ?? configuration.concurrencyLimit
        self.breaker = breaker ?? configuration.circuitBreaker
        self.sleep = sleep
    }

    /// Sends `request` (with the configured model if it names none) and decodes the answer.
    /// Throws `LLMError`; never retries client errors (400, 401, 403, 404, 422) or undecodable answers.
    package func complete(_ request: ChatCompletionRequest) async throws -> ChatCompletionResult {
        try await complete(request, logger: logger)
    }

    /// Sends `request` as `complete(_:)` does, logging its attempts and retries with `caller`'s metadata (the run,
    /// conversation and feature ids) under the client's own label.
    package func complete(_ request: ChatCompletionRequest, logger caller: Logger) async throws -> ChatCompletionResult {
        var logger = self.logger
        for (key, value) in caller.handler.metadata { logger[metadataKey: key] = value }
        let httpRequest = try httpRequest(for: request)
        let clock = ContinuousClock()
        let start = clock.now
        let loop = RetryLoop(policy: configuration.retryPolicy, sleep: sleep, logger: logger)
        do {
            let result = try await attempts(httpRequest, loop: loop, clock: clock, start: start, logger: logger)
            if let why = result.response.discardedUsage { Self.noteDiscardedUsage(why, logger: logger) }
            LLMSpendMeter.current?.add(attempts: result.attempts, usage: result.response.usage)
            return result
        } catch let error as LLMError {
            LLMSpendMeter.current?.add(attempts: error.attempts, usage: nil)
            // The failure that opened the breaker (or came back while it was open) is the outage's, not the request's;
            // its last error stays this request's own (a timeout here is not the 503 another request got).
            if error.isOutageClass, error.outage == nil, let outage = breaker.outage {
                let own = CircuitBreaker.Outage(server: outage.server, failures: outage.failures, lastError: "\(error.underlying)",
                                                probeAt: outage.probeAt)
                throw error.attempts > 0 ? LLMError.retriesExhausted(attempts: error.attempts, last: .serverUnavailable(own))
                    : LLMError.serverUnavailable(outage)
            }
            throw error
        } catch {
            LLMSpendMeter.current?.add(attempts: 1, usage: nil)
            throw error
        }
    }

    private func attempts(_ httpRequest: HTTPRequest, loop: RetryLoop, clock: ContinuousClock,
                          start: ContinuousClock.Instant, logger: Logger) async throws -> ChatCompletionResult {
        let call = breaker.call()
        return try await loop.run("chat.completions") { attempt in
            do {
                try await concurrency.acquire()
            } catch {
                return .failure(.cancelled, retryAfter: nil)
            }
            let attemptStart = clock.now
            do {
                let sent: HTTPResponse
                do {
                    sent = try await breaker.send(httpRequest, via: transport, call: call, describe: { describe($0) }) {
                        LLMSpendMeter.current?.noteSent()
                    }
                    await concurrency.release()
                } catch {
                    await concurrency.release()
                    throw error
                }
                // Scrubbed once, here, so nothing downstream (rows, traces, reports, errors) can carry the key.
                let response = SecretScrubbing.scrub(sent, secret: configuration.apiKey)
                logger.debug("LLM attempt finished", metadata: [
                    "attempt": "\(attempt)", "status": "\(response.status)",
                    "latency_ms": "\((clock.now - attemptStart).wholeMilliseconds)",
                    "request_id": "\(response.header("x-request-id") ?? "-")",
                ])
                if (200..<300).contains(response.status) {
                    return .success(try decodeSuccess(response, attempts: attempt, latency: clock.now - start))
                }
                return .failure(httpError(response), retryAfter: RetryPolicy.retryAfter(headers: response.headers))
            } catch let error as LLMError {
                if case .serverUnavailable = error { return .failure(error, retryAfter: nil) }
                throw error
            } catch {
                let failure = transportError(error)
                logger.debug("LLM attempt failed", metadata: ["attempt": "\(attempt)", "error": "\(failure)"])
                return .failure(failure, retryAfter: nil)
            }
        }
    }

    /// Whether a discarded `usage` block was logged yet: once per process at warning, then at debug, so a server that
    /// always sends one cannot flood the log.
    private static let discardedUsageLogged = Atomic<Bool>(false)

    private static func noteDiscardedUsage(_ why: String, logger: Logger) {
        let first = !discardedUsageLogged.exchange(true, ordering: .relaxed)
        logger.log(level: first ? .warning : .debug, "the server sent an impossible token usage: counted as unknown, not stored",
                   metadata: ["why": "\(why)"])
    }

    /// The HTTP request `complete` sends for `request` (a layer below, such as an answer cache, sees exactly this).
    package func httpRequest(for request: ChatCompletionRequest) throws -> HTTPRequest {
        var request = request
        if request.model == nil { request.model = configuration.defaultModel }
        guard request.model != nil else {
            throw LLMError.invalidRequest("no model: the request names none and the configuration has no default model (OPENAI_MODEL)")
        }
        var headers = ["Content-Type": "application/json", "Accept": "application/json"]
        if let key = configuration.apiKey {
            guard LLMConfiguration.isSendable(apiKey: key) else {
                throw LLMError.invalidRequest("the API key holds spaces, line breaks or other characters a header cannot carry (not shown)")
            }
            headers["Authorization"] = "Bearer \(key)"
        }
        return HTTPRequest(
            method: "POST",
            url: configuration.chatCompletionsURL,
            headers: headers,
            body: request.body(tokenField: configuration.maxTokensField).serializedData(),
            timeout: configuration.requestTimeout
        )
    }

    private func decodeSuccess(_ response: HTTPResponse, attempts: Int, latency: Duration) throws(LLMError) -> ChatCompletionResult {
        do {
            return ChatCompletionResult(
                response: try ChatCompletionResponse.decode(response.body),
                attempts: attempts,
                latency: latency,
                requestID: response.header("x-request-id"),
                rateLimit: RateLimitInfo(headers: response.headers)
            )
        } catch {
            throw .decoding(error.message, bodyExcerpt: excerpt(response.body))
        }
    }

    /// A 5xx answer for the breaker's outage: its status and a short excerpt of its body, with the key redacted.
    private func describe(_ response: HTTPResponse) -> String {
        httpError(SecretScrubbing.scrub(response, secret: configuration.apiKey)).description
    }

    /// The server's `error.message` when the body is an OpenAI error object, else the body itself.
    private func httpError(_ response: HTTPResponse) -> LLMError {
        let message: String
        if let json = try? JSONValue.parse(response.body), let text = json["error"]?["message"]?.stringValue ?? json["message"]?.stringValue {
            message = LLMError.excerpt(text, hiding: configuration.apiKey)
        } else {
            message = excerpt(response.body)
        }
        return .http(status: response.status, message: message.isEmpty ? "(empty body)" : message, requestID: response.header("x-request-id"))
    }

    private func transportError(_ error: any Error) -> LLMError {
        switch error {
        case TransportError.timedOut(let limit): .timeout(limit)
        case TransportError.cancelled, is CancellationError: .cancelled
        // Not worth retrying: the same server would send the same oversized answer again.
        case TransportError.responseTooLarge: .decoding(String(describing: error), bodyExcerpt: "")
        case let error as TransportError: .transport(LLMError.excerpt(error.description + serverNote, hiding: configuration.apiKey))
        default: .transport(LLMError.excerpt(String(describing: error) + serverNote, hiding: configuration.apiKey))
        }
    }

    /// Names the server in transport errors, so a wrong OPENAI_BASE_URL is seen at once.
    private var serverNote: String { " (server \(TransportErrorText.server(configuration.baseURL)))" }

    private func excerpt(_ body: Data) -> String {
        LLMError.excerpt(String(decoding: body, as: UTF8.self), hiding: configuration.apiKey)
    }
}

extension OpenAIClient {
    package var circuitBreaker: CircuitBreaker? { breaker }
}

extension OpenAIClient: CustomStringConvertible, CustomDebugStringConvertible {
    /// Safe to log: shows the configuration with its key redacted.
    package var description: String { "OpenAIClient(\(configuration))" }
    package var debugDescription: String { description }
}
