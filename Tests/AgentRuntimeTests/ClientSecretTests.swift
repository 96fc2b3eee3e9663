import AgentRuntime
import Foundation
import Core
import Testing
import TestSupport

@Suite("The API key never appears in errors")
struct ClientSecretTests {
    static let key = "sk-proj-SECRETKEY-4d1f9a77"

    /// A server that echoes the Authorization header back in its error bodies, as a careless proxy might.
    private func echoingServer(status: Int) throws -> FakeOpenAIServer {
        try FakeOpenAIServer { request in
            let auth = request.header("authorization") ?? "none"
            return .error(status: status, message: "bad credentials: \(auth)")
        }
    }

    private func client(_ server: FakeOpenAIServer, model: String? = "m", timeout: Duration = .seconds(10), retry: RetryPolicy = .noRetries) -> OpenAIClient {
        makeClient(server, apiKey: Self.key, model: model, timeout: timeout, retry: retry)
    }

    @Test("every error kind's description is free of the key")
    func noKeyInErrors() async throws {
        var errors: [String: LLMError] = [:]

        let unauthorized = try echoingServer(status: 401)
        errors["http"] = await llmError { _ = try await client(unauthorized).complete(helloRequest) }
        // The echo really contained the key, so the redaction is what kept it out.
        #expect(unauthorized.requests.first?.header("authorization") == "Bearer \(Self.key)")

        let plain = try FakeOpenAIServer { request in .status(403, body: "forbidden for \(request.header("authorization") ?? "")", headers: ["Content-Type": "text/plain"]) }
        errors["http-plain"] = await llmError { _ = try await client(plain).complete(helloRequest) }

        let flaky = try echoingServer(status: 500)
        errors["exhausted"] = await llmError {
            _ = try await client(flaky, retry: RetryPolicy.modelCalls(maxAttempts: 2, baseDelay: .milliseconds(1))).complete(helloRequest)
        }

        let garbled = try FakeOpenAIServer { request in .raw(Data("oops \(request.header("authorization") ?? "")".utf8)) }
        errors["decoding"] = await llmError { _ = try await client(garbled).complete(helloRequest) }

        let slow = try FakeOpenAIServer()
        slow.enqueue(.delay(10, then: .chat(content: "late")))
        errors["timeout"] = await llmError { _ = try await client(slow, timeout: .milliseconds(200)).complete(helloRequest) }

        let gone = try FakeOpenAIServer()
        let goneClient = client(gone)
        gone.stop()
        errors["transport"] = await llmError { _ = try await goneClient.complete(helloRequest) }

        errors["invalid"] = await llmError { _ = try await client(gone, model: nil).complete(helloRequest) }

        let hanging = try FakeOpenAIServer()
        hanging.enqueue(.delay(10, then: .chat(content: "late")))
        let hangingClient = client(hanging)
        let task = Task { try await hangingClient.complete(helloRequest) }
        _ = await hanging.waitForRequests(count: 1)
        task.cancel()
        errors["cancelled"] = await llmError { _ = try await task.value }

        let expectedKinds = ["http", "http-plain", "exhausted", "decoding", "timeout", "transport", "invalid", "cancelled"]
        #expect(Set(errors.keys) == Set(expectedKinds))
        for (kind, error) in errors {
            #expect(!error.description.contains(Self.key), "\(kind): \(error)")
            #expect(!String(reflecting: error).contains(Self.key), "\(kind): \(error)")
        }
        if case .http(401, let message, _) = errors["http"] {
            #expect(message.contains("[redacted]"))
        } else {
            Issue.record("expected a 401, got \(String(describing: errors["http"]))")
        }
        if case .transport = errors["transport"] {} else { Issue.record("expected a transport error, got \(String(describing: errors["transport"]))") }
    }

    @Test("printing the configuration or the client does not show the key")
    func noKeyInDescriptions() throws {
        let configuration = LLMConfiguration(apiKey: Self.key, defaultModel: "m")
        let client = OpenAIClient(configuration: configuration)
        for text in ["\(configuration)", String(reflecting: configuration), "\(client)", String(reflecting: client)] {
            #expect(!text.contains(Self.key), "\(text)")
        }
        #expect("\(configuration)".contains("[redacted]"))
    }
}

