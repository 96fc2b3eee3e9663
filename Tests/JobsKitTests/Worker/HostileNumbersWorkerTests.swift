import AgentRuntime
import Core
import Foundation
import JobsKit
import TestSupport
import Testing

/// `worker --metrics-port`, as Kubernetes runs it, against a model server whose every answer carries numbers no real
/// server sends (issue 47 item 1): negative and huge token counts, 2^53+1, floats, strings, counts beyond Int64,
/// rate-limit headers that never reset. It survives each, serves every request, strands none, stores no impossible
/// count and feeds none to a counter; the first impossible usage is logged once.
@Suite("Worker: hostile numbers from the model server")
struct HostileNumbersWorkerTests {
    /// `usage` blocks as raw JSON text (so a number beyond Int64 or a float stays exactly as a server writes it).
    static let usages = [
        #"{"prompt_tokens": -5000000, "completion_tokens": 10, "total_tokens": -4999990}"#,
        #"{"prompt_tokens": 10, "completion_tokens": 9007199254740993, "total_tokens": 9007199254741003}"#,
        #"{"prompt_tokens": 9223372036854775807, "completion_tokens": 9223372036854775807, "total_tokens": 1}"#,
        #"{"prompt_tokens": 99999999999999999999999, "completion_tokens": 1}"#,
        #"{"prompt_tokens": 1e308, "completion_tokens": -1e308}"#,
        #"{"prompt_tokens": 12.5, "completion_tokens": 3.25, "total_tokens": 15.75}"#,
        #"{"prompt_tokens": "100", "completion_tokens": "5"}"#,
        #"{"prompt_tokens": 10, "completion_tokens": 5, "prompt_tokens_details": {"cached_tokens": 5000}}"#,
        #"{"prompt_tokens": 10, "completion_tokens": 5, "completion_tokens_details": {"reasoning_tokens": -7}}"#,
        #"{"prompt_tokens": 10000001, "completion_tokens": 0}"#,
        #"[1, 2, 3]"#,
        #""lots""#,
        // A real one, so the counters are seen to move.
        #"{"prompt_tokens": 200, "completion_tokens": 30, "total_tokens": 230}"#,
    ]

    /// Rate-limit headers with impossible numbers, sent with every other answer.
    static let headers = [
        "x-ratelimit-remaining-requests": "-99999999999999999999",
        "x-ratelimit-remaining-tokens": "0",
        "x-ratelimit-reset-tokens": "99999999999999999999h",
        "retry-after-ms": "1e30",
    ]

    /// `reply` (a `.chat` answer) as a raw body carrying `usage` verbatim.
    static func hostile(_ reply: ScriptedReply, usage: String, sequence: Int) -> ScriptedReply {
        guard case .chat(let content, _, _) = reply else { return reply }
        let body = #"{"id": "chatcmpl-\#(sequence)", "object": "chat.completion", "created": 9007199254740993, "model": "hostile-model", "#
            + #""choices": [{"index": 0, "message": {"role": "assistant", "content": \#(JSONValue.string(content).serialized())}, "#
            + #""finish_reason": "stop"}], "usage": \#(usage)}"#
        let raw = ScriptedReply.raw(Data(body.utf8))
        return sequence.isMultiple(of: 2) ? .withHeaders(headers, raw) : raw
    }

    @Test("the worker survives every hostile usage and header, serves every request and strands none")
    func survivesHostileNumbers() async throws {
        try await WorkerHarness.withDemo { db in
            let counter = Counter()
            let server = try FakeOpenAIServer { request in
                let sequence = counter.next("requests") - 1
                return Self.hostile(ScanRequests.answer(request), usage: Self.usages[sequence % Self.usages.count], sequence: sequence)
            }
            defer { server.stop() }
            let port = try FreePort.find()
            let child = try JobsBinary.child(
                ["worker", "--provider", "openai", "--prompts", WorkerHarness.promptsPath, "--poll-seconds", "1", "--metrics-port", "\(port)"],
                environment: ["DATABASE_URL": db.connectionURL, "OPENAI_BASE_URL": server.baseURL.absoluteString,
                              "OPENAI_API_KEY": "sk-test-hostile-numbers", "MESSAGEAI_REQUEST_MODE": "per-feature"])
            defer { child.kill() }
            try await child.waitForStderr(containing: "serving /healthz, /readyz and /metrics on http://127.0.0.1:\(port)", timeout: 60)

            let queue = JobRequestQueue(pool: db.pool)
            let conversations = WorkerHarness.conversations
            let ids = [try await queue.enqueue(.extract, id: conversations.classGroup), try await queue.enqueue(.extract, id: conversations.carpool),
                       try await queue.enqueue(.extract, id: conversations.birthday), try await queue.enqueue(.extract, id: conversations.coParents)]
            try await WorkerHarness.waitUntilFinished(ids, db.pool, timeout: 120)

            #expect(child.isRunning, "the worker is alive: \(child.stderr.suffix(2000))")
            #expect(server.requests.count >= Self.usages.count, "every hostile usage was sent at least once")
            let statuses = try await db.pool.query("SELECT status, count(*) AS n FROM job_requests GROUP BY status ORDER BY status")
                .map { "\(try $0.decode("status", as: String.self)) \(try $0.decode("n", as: Int.self))" }
            #expect(statuses == ["done 4"], "no request failed or was left running: \(statuses)")
            let tokens = try await db.pool.query(
                "SELECT min(least(prompt_tokens, completion_tokens, cached_prompt_tokens)) AS low, max(greatest(prompt_tokens, completion_tokens)) AS high FROM job_runs")[0]
            #expect(try tokens.decode("low", as: Int64.self) >= 0)
            #expect(try tokens.decode("high", as: Int64.self) <= Int64(Usage.plausibleLimit))

            let metrics = try await LoopbackEndpoint(port: port).get("/metrics")
            #expect(metrics.status == 200)
            for type in ["prompt", "completion"] {
                let value = PrometheusText.value(metrics.text, #"messageai_worker_model_tokens_total{kind="extract",type="\#(type)"}"#)
                #expect(value.map { $0 > 0 && $0 <= Double(Usage.plausibleLimit) } == true, "only real counts: \(type) \(value.map { "\($0)" } ?? "none")")
            }
            #expect(try await LoopbackEndpoint(port: port).get("/healthz").status == 200)

            child.kill(SIGTERM)
            #expect(try await child.waitForExit(timeout: 30) == .exit(0), "\(child.stderr.suffix(2000))")
            let warnings = child.stderr.components(separatedBy: "impossible token usage").count - 1
            #expect(warnings == 1, "the impossible usage is logged once at info level and above, not per answer: \(warnings)")
        }
    }
}
