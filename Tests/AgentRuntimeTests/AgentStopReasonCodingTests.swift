import AgentRuntime
import Foundation
import Testing

/// A stop reason is an enum in code and its text in JSON reports and `assistant_runs.stop_reason` (issue 13, item 4).
@Suite("Agent stop reason coding")
struct AgentStopReasonCodingTests {
    static let all: [AgentStopReason] = [
        .completed, .maxSteps, .tokenBudget, .deadline, .repeatedToolCall, .cancelled,
        .refused("I can't help with that."), .error("HTTP 500: error: nested"),
    ]

    @Test("every reason encodes as its text and decodes back to itself")
    func roundTrip() throws {
        for reason in Self.all {
            let data = try JSONEncoder().encode([reason])
            #expect(String(decoding: data, as: UTF8.self) == "[\(String(decoding: try JSONEncoder().encode(reason.description), as: UTF8.self))]")
            #expect(try JSONDecoder().decode([AgentStopReason].self, from: data) == [reason])
        }
        #expect(String(decoding: try JSONEncoder().encode(AgentStopReason.completed), as: UTF8.self) == #""completed""#)
    }

    @Test("unknown text is refused with the text in the error")
    func unknownText() {
        #expect(AgentStopReason("finished") == nil)
        let error = #expect(throws: DecodingError.self) { try JSONDecoder().decode(AgentStopReason.self, from: Data(#""finished""#.utf8)) }
        #expect("\(String(describing: error))".contains("finished"))
    }
}
