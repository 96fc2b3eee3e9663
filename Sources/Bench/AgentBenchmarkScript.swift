package import Foundation
package import Core

/// What the benchmark server answers, decided from the request alone (no state, so any number of runs can share
/// one server): an agent conversation of S steps gets S-1 rounds of one tool call each, cycling through the five
/// tools, then a final text answer; the round is one more than the `tool` messages the request carries. Requests
/// with a `response_format` (extractors, the seed's design) get a schema-valid empty-ish JSON answer instead.
/// Usage always follows `TokenCostRule`.
package enum AgentBenchmarkScript {
    /// One of the five tools, shaped like a real tool family, with the fixed result both agent runtimes return.
    /// The Python Agents SDK script (`benchmarks/agents-sdk/bench_agents_sdk.py`) repeats `name` and `result`.
    package struct ScriptedTool: Sendable {
        package let name: String
        package let result: String
        /// The arguments the script sends in a round: they carry the round number so no call repeats.
        let arguments: @Sendable (Int) -> String
    }

    package static let tools: [ScriptedTool] = [
        ScriptedTool(
            name: "get_recent_messages",
            result: #"{"messages":[{"conversation":"Room 4B parents","sender":"Maria Lopez","sent_at":"2026-03-02T18:04:00-05:00","text":"Picture day is Thursday, please send the form by Wednesday."}],"count":1,"truncated":false}"#,
            arguments: { #"{"conversation_id":null,"days":\#($0),"limit":20}"# }),
        ScriptedTool(
            name: "get_upcoming_events",
            result: #"{"from":"2026-03-03","through":"2026-03-10","time_zone":"America/New_York","events":[{"id":"e1","title":"Soccer practice","date":"2026-03-05","time":"17:30","location":"Lincoln Field"}],"count":1,"truncated":false}"#,
            arguments: { #"{"days":\#($0)}"# }),
        ScriptedTool(
            name: "get_pending_rsvps",
            result: #"{"rsvps":[{"id":"r1","event_name":"Emma's birthday party","event_date":"2026-03-14","deadline":"2026-03-10","days_until_deadline":7,"requested_by":"Dan Kim","conversation":"Birthday planning"}],"count":1}"#,
            arguments: { #"{"limit":\#($0)}"# }),
        ScriptedTool(
            name: "get_upcoming_deadlines",
            result: #"{"deadlines":[{"id":"d1","task":"Return the zoo permission slip","deadline":"2026-03-06","deadline_time":null,"category":"school","priority":"high","days_left":3}],"count":1,"truncated":false}"#,
            arguments: { #"{"days":\#($0)}"# }),
        ScriptedTool(
            name: "list_reminders",
            result: #"{"reminders":[{"id":"m1","title":"Reminder: zoo permission slip","remind_at":"2026-03-05T18:00:00-05:00","priority":"high","status":"pending","created_by":"ai"}],"count":1,"truncated":false}"#,
            arguments: { #"{"include_done":false,"limit":\#($0)}"# }),
    ]

    /// The task both runtimes are given.
    package static let systemPrompt = "You are the MessageAI assistant for a busy parent. Use the tools to look at their week, then answer briefly."
    package static let userPrompt = "What do I need to do this week?"
    /// The answer that ends every conversation.
    package static let finalAnswer = "This week: return the zoo permission slip by Friday, answer Emma's party RSVP by Tuesday, and soccer practice is Thursday at 17:30."

    /// The round a request is at: one more than its `tool` messages.
    package static func round(of request: JSONValue) -> Int {
        (request["messages"]?.arrayValue ?? []).count(where: { $0["role"]?.stringValue == "tool" }) + 1
    }

    /// The assistant message and finish reason for `request` in a conversation of `steps` model calls.
    package static func reply(to request: JSONValue, steps: Int) -> (message: JSONValue, finishReason: String) {
        if let format = request["response_format"], !format.isNull {
            return (["role": "assistant", "content": .string(structuredAnswer(request).serialized())], "stop")
        }
        let round = round(of: request)
        guard round < steps else { return (["role": "assistant", "content": .string(finalAnswer)], "stop") }
        let tool = tools[(round - 1) % tools.count]
        let call: JSONValue = [
            "id": .string("call_\(round)"), "type": "function",
            "function": ["name": .string(tool.name), "arguments": .string(tool.arguments(round))],
        ]
        return (["role": "assistant", "content": nil, "tool_calls": [call]], "tool_calls")
    }

    /// A full Chat Completions response for a request body, or a 400 body saying what is wrong with it. With `cache`,
    /// `usage.prompt_tokens_details.cached_tokens` reports what OpenAI's automatic prefix caching would have served.
    package static func completion(for body: Data, steps: Int, cache: PrefixCacheEmulator? = nil) -> (status: Int, body: Data) {
        let request: JSONValue
        do {
            request = try JSONValue.parse(body)
        } catch {
            return (400, errorBody("the request body is not JSON: \(error)"))
        }
        guard request["messages"]?.arrayValue != nil else {
            return (400, errorBody("the request has no 'messages' array"))
        }
        let (message, finishReason) = reply(to: request, steps: steps)
        let prompt = TokenCostRule.promptTokens(request)
        let completion = TokenCostRule.completionTokens(message)
        var usage: JSONObject = ["prompt_tokens": .integer(Int64(prompt)), "completion_tokens": .integer(Int64(completion)),
                                 "total_tokens": .integer(Int64(prompt + completion))]
        if let cache { usage["prompt_tokens_details"] = ["cached_tokens": .integer(Int64(cache.cachedTokens(for: request)))] }
        let response: JSONValue = [
            "id": .string("chatcmpl-bench-\(round(of: request))"), "object": "chat.completion", "created": 1_767_225_600,
            "model": .string(request["model"]?.stringValue ?? "bench-model"),
            "choices": [["index": 0, "message": message, "finish_reason": .string(finishReason)]],
            "usage": .object(usage),
        ]
        return (200, response.serializedData())
    }

    /// The scan benchmark's answer for our extractors' schemas; for any other schema, its array properties empty.
    static func structuredAnswer(_ request: JSONValue) -> JSONValue {
        let known = BenchOpenAIServer.answer(for: request)
        if known != [:] { return known }
        let format = request["response_format"]
        let schema = format?["json_schema"]?["schema"] ?? format?["schema"]
        var answer = JSONObject()
        for (key, property) in schema?["properties"]?.objectValue ?? [:] where property["type"]?.stringValue == "array" {
            answer[key] = []
        }
        return .object(answer)
    }

    static func errorBody(_ message: String) -> Data {
        JSONValue.object(["error": ["message": .string(message), "type": "invalid_request_error"]]).serializedData()
    }
}
