import Foundation
import Bench
import JobsKit
import Core
import Testing

@Suite("Bench serve scripting")
struct AgentBenchmarkScriptTests {
    /// A conversation after `k` rounds: system, user, then per round an assistant tool call and its tool result.
    static func conversation(afterRounds k: Int) -> JSONValue {
        var messages: [JSONValue] = [["role": "system", "content": "sys"], ["role": "user", "content": "what now?"]]
        for round in 0..<k {
            messages.append(["role": "assistant", "content": nil, "tool_calls": [
                ["id": .string("call_\(round + 1)"), "type": "function", "function": ["name": "x", "arguments": "{}"]],
            ]])
            messages.append(["role": "tool", "tool_call_id": .string("call_\(round + 1)"), "content": "{}"])
        }
        return ["model": "m", "messages": .array(messages), "tools": []]
    }

    @Test(arguments: 0..<5)
    func aRequestWithKToolMessagesGetsRoundKPlusOne(k: Int) throws {
        let request = Self.conversation(afterRounds: k)
        #expect(AgentBenchmarkScript.round(of: request) == k + 1)
        let (message, finish) = AgentBenchmarkScript.reply(to: request, steps: 6)
        #expect(finish == "tool_calls")
        let call = try #require(message["tool_calls"]?.arrayValue?.first)
        #expect(message["tool_calls"]?.arrayValue?.count == 1)
        #expect(call["id"]?.stringValue == "call_\(k + 1)")
        #expect(call["function"]?["name"]?.stringValue == AgentBenchmarkScript.tools[k % 5].name)
        let arguments = try JSONValue.parse(try #require(call["function"]?["arguments"]?.stringValue))
        #expect(arguments.objectValue != nil, "arguments are a JSON object: \(arguments)")
    }

    @Test func theFiveRoundsCallTheFiveToolsWithArgumentsThatNeverRepeat() throws {
        var seen = Set<String>()
        var names = Set<String>()
        for k in 0..<12 {
            let (message, _) = AgentBenchmarkScript.reply(to: Self.conversation(afterRounds: k), steps: 20)
            let function = try #require(message["tool_calls"]?[0]?["function"])
            names.insert(try #require(function["name"]?.stringValue))
            seen.insert((function["name"]?.stringValue ?? "") + (function["arguments"]?.stringValue ?? ""))
        }
        #expect(names == Set(AgentBenchmarkScript.tools.map(\.name)))
        #expect(names.count == 5)
        #expect(seen.count == 12)
    }

    @Test(arguments: [1, 3, 6])
    func theFinalRoundIsText(steps: Int) {
        let (message, finish) = AgentBenchmarkScript.reply(to: Self.conversation(afterRounds: steps - 1), steps: steps)
        #expect(finish == "stop")
        #expect(message["content"]?.stringValue == AgentBenchmarkScript.finalAnswer)
        #expect(message["tool_calls"] == nil)
    }

    @Test func usageIsComputedFromTheRequestAndTheAnswer() throws {
        let system = "You plan the week.", user = "Anything due? 📚", tool = #"{"count":0}"#
        let call = ("get_recent_messages", #"{"conversation_id":null,"days":1,"limit":20}"#)
        let request: JSONValue = ["model": "m", "messages": [
            ["role": "system", "content": .string(system)],
            ["role": "user", "content": .string(user)],
            ["role": "assistant", "content": nil, "tool_calls": [
                ["id": "call_1", "type": "function", "function": ["name": .string(call.0), "arguments": .string(call.1)]],
            ]],
            ["role": "tool", "tool_call_id": "call_1", "content": .string(tool)],
        ]]
        let (status, body) = AgentBenchmarkScript.completion(for: request.serializedData(), steps: 2)
        #expect(status == 200)
        let response = try JSONValue.parse(body)
        let promptBytes = system.utf8.count + user.utf8.count + call.0.utf8.count + call.1.utf8.count + tool.utf8.count
        let answerBytes = AgentBenchmarkScript.finalAnswer.utf8.count
        #expect(response["usage"]?["prompt_tokens"]?.integerValue == Int64((promptBytes + 3) / 4))
        #expect(response["usage"]?["completion_tokens"]?.integerValue == Int64((answerBytes + 3) / 4))
        #expect(response["usage"]?["total_tokens"]?.integerValue == Int64((promptBytes + 3) / 4 + (answerBytes + 3) / 4))
        #expect(response["choices"]?[0]?["message"]?["content"]?.stringValue == AgentBenchmarkScript.finalAnswer)
    }

    @Test func toolsAndResponseFormatAreBilledAndStructuredRequestsGetEmptyLists() throws {
        let format: JSONValue = ["type": "json_schema", "json_schema": ["name": "seed_things", "schema": [
            "type": "object", "properties": ["things": ["type": "array"], "note": ["type": "string"]],
        ]]]
        let plain: JSONValue = ["messages": [["role": "user", "content": "abcd"]]]
        var withFormat = try #require(plain.objectValue)
        withFormat["response_format"] = format
        let request = JSONValue.object(withFormat)
        #expect(TokenCostRule.promptBytes(request) == 4 + format.serialized().utf8.count)
        let (message, finish) = AgentBenchmarkScript.reply(to: request, steps: 6)
        #expect(finish == "stop")
        let answer = try JSONValue.parse(try #require(message["content"]?.stringValue))
        #expect(answer == ["things": []])
    }

    @Test func malformedRequestsGetAClear400() throws {
        let (status, body) = AgentBenchmarkScript.completion(for: Data("{not json".utf8), steps: 3)
        #expect(status == 400)
        let message = try JSONValue.parse(body)["error"]?["message"]?.stringValue ?? ""
        #expect(message.contains("not JSON"))
        let (noMessages, _) = AgentBenchmarkScript.completion(for: Data(#"{"model":"m"}"#.utf8), steps: 3)
        #expect(noMessages == 400)
    }
    /// `messageai-bench serve` reports `cached_tokens` as OpenAI's prefix caching would: nothing for a first request or
    /// a short prefix, the repeated prefix in whole 128-token blocks from 1,024 tokens on.
    @Test func theServerReportsEmulatedCachedTokens() throws {
        let cache = PrefixCacheEmulator()
        let fixed = String(repeating: "You find calendar events in a group chat. ", count: 150)  // ~6 KB, ~1,600 tokens
        func request(_ user: String) -> Data {
            JSONValue.object(["model": "m", "messages": [["role": "system", "content": .string(fixed)], ["role": "user", "content": .string(user)]],
                              "response_format": ["type": "json_schema", "json_schema": ["name": "things", "strict": true,
                                                  "schema": ["type": "object", "properties": ["things": ["type": "array", "items": ["type": "string"]]],
                                                             "required": ["things"], "additionalProperties": false]]]]).serializedData()
        }
        func cached(_ body: Data) throws -> Int64? {
            let (status, answer) = AgentBenchmarkScript.completion(for: body, steps: 1, cache: cache)
            #expect(status == 200)
            return try JSONValue.parse(answer)["usage"]?["prompt_tokens_details"]?["cached_tokens"]?.integerValue
        }
        #expect(try cached(request("first night")) == 0)
        let second = try #require(try cached(request("second night")))
        #expect(second >= 1024 && second % 128 == 0)
        #expect(second <= Int64(fixed.utf8.count / 4))
    }
}
