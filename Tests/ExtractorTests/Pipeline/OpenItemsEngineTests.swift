import AgentRuntime
import Core
@testable import Extractors
import Foundation
import PromptKit
import Testing
import TestSupport

/// A night's request carries the conversation's open items and its answer's `known` list is decoded into verdicts
/// (docs/over-nights.md, phase 2), through the real client against a scripted server; a conversation with no open
/// items sends byte for byte the request of the prompt versions before open items existed.
@Suite("Open items in the request, known items in the answer")
struct OpenItemsEngineTests {
    static let zone = TimeZone(identifier: "America/New_York")!
    /// Friday 2026-12-04, noon in New York.
    static let now = WallClock.instant(LocalDate(iso: "2026-12-04")!, LocalTime(hour: 12, minute: 0)!, in: zone)
    static let people = [Participant(id: "u-ana", name: "Ana Ruiz"), Participant(id: "u-dan", name: "Dan Kim"),
                         Participant(id: "u-lee", name: "Lee Park")]

    static let all: [ExtractionFeature] = [.calendarEvents, .decisions, .priorityMessages, .rsvps, .deadlines]

    static func at(_ minute: Int) -> Date { now.addingTimeInterval(Double(minute - 120) * 60) }

    /// Friday's messages: the party moves, Lee's family handed in the slip.
    static func input(state: ConversationState = ConversationState()) -> ConversationInput {
        var input = ConversationInput(
            conversationID: "c-1", name: "Class 2 parents", isGroup: true, participants: people,
            messages: [InputMessage(id: "x1", senderID: "u-dan", sentAt: at(0), text: "The party moves to Sunday, still at 2pm"),
                       InputMessage(id: "x2", senderID: "u-lee", sentAt: at(5), text: "We handed in the permission slip"),
                       InputMessage(id: "x3", senderID: "u-ana", sentAt: at(10), text: "Great, thanks")],
            timeZone: zone, now: now, viewer: people[0])
        input.state = state
        return input
    }

    /// Emma's party on Saturday the 12th (e1), the slip due the 11th (t1), Dan driving Tuesday (c1): their messages are
    /// long gone from the window.
    static let state = ConversationState(items: [
        TrackedItem(ref: "e1", body: .event(EventItem(title: "Emma's birthday party", date: LocalDate(iso: "2026-12-12")!,
                                                      time: LocalTime(iso: "14:00"), endTime: nil, location: nil, description: "",
                                                      category: .social, confidence: 0.9, datePhrase: nil, modelDate: nil, sources: ["old1"]))),
        TrackedItem(ref: "t1", body: .deadline(DeadlineItem(task: "Permission slip", deadline: LocalDate(iso: "2026-12-11")!, time: nil,
                                                            category: .school, priority: "high", details: nil, datePhrase: nil,
                                                            modelDate: nil, sources: ["old2"]))),
        TrackedItem(ref: "c1", body: .decision(DecisionItem(decision: "Dan drives Tuesday", category: .carpool, decidedBy: nil,
                                                            deadline: nil, datePhrase: nil, modelDate: nil, sources: ["old3"]))),
    ])

    static func engine(_ server: FakeOpenAIServer, mode: RequestMode, library: PromptLibrary? = nil) throws -> ExtractionEngine {
        let prompts = try library ?? PromptLibrary.load(directory: RepositoryPaths.root.appendingPathComponent("prompts"))
        var engine = try ExtractionEngine(prompts: prompts, provider: LLMAnswerProvider(client: server.client(), structuredOutput: .jsonSchema))
        engine.mode = mode
        return engine
    }

    /// The smallest answer the request's schema accepts, with `known` when given.
    static func reply(_ request: RecordedRequest, known: [JSONValue]? = nil) -> ScriptedReply {
        var answer = CombinedSchema.emptyAnswer(request.json?["response_format"]?["json_schema"]?["schema"] ?? .null)
        if let known, var object = answer.objectValue {
            object[KnownItems.key] = .array(known)
            answer = .object(object)
        }
        return .chat(content: answer.serialized())
    }

    static let window = MessageWindow(messages: input().messages, participants: people)
    static func m(_ id: String) -> JSONValue { .string(window.alias(ofMessage: id)!) }
    static func p(_ id: String) -> JSONValue { .string(window.alias(ofParticipant: id)!) }

    /// One good entry of each kind and a hostile one of each kind the decode refuses.
    static func change(date: JSONValue = nil, words: JSONValue = nil, phrase: JSONValue = nil, evidence: String, sources: [JSONValue]) -> JSONValue {
        ["words": words, "date": date, "time": nil, "end_time": nil, "location": nil, "date_phrase": phrase,
         "evidence": .string(evidence), "source_message_ids": .array(sources), "responses": []]
    }

    static let known: [JSONValue] = [
        // The party moves: only its date changes, the rest stands as listed.
        ["ref": "e1", "verdict": "changed", "for": [], "message_ids": [m("x1")],
         "changed": change(date: "2026-12-13", phrase: "Sunday", evidence: "The party moves to Sunday", sources: [m("x1")])],
        ["ref": "t1", "verdict": "met", "for": [p("u-lee")], "message_ids": [m("x2")], "changed": nil],
        // An invented ref: kept, so the reconciliation refuses it and counts it.
        ["ref": "x9", "verdict": "met", "for": [], "message_ids": [m("x2")], "changed": nil],
        // No such verdict.
        ["ref": "e1", "verdict": "postponed", "for": [], "message_ids": [m("x1")], "changed": nil],
        // A change citing only a message the request did not carry.
        ["ref": "c1", "verdict": "changed", "for": [], "message_ids": ["m99"],
         "changed": change(words: "Maria drives Tuesday", evidence: "Maria drives Tuesday", sources: ["m99"])],
        // A change that says nothing of what changed.
        ["ref": "t1", "verdict": "changed", "for": [], "message_ids": [m("x1")], "changed": nil],
    ]

    @Test func theCombinedRequestListsOpenItemsAndItsAnswersVerdictsAreCheckedItemByItem() async throws {
        let server = try FakeOpenAIServer { Self.reply($0, known: Self.known) }
        defer { server.stop() }
        let engine = try Self.engine(server, mode: .combined)
        let input = Self.input(state: Self.state)
        let run = try await engine.extract(input, features: Self.all)

        let body = try #require(server.requests.first?.json)
        let user = body["messages"]?.arrayValue?.last?["content"]?.stringValue ?? ""
        #expect(user.hasSuffix("</messages>\n<open_items>\ne1 event \"Emma's birthday party\" 2026-12-12 14:00\n"
                               + "t1 deadline \"Permission slip\" 2026-12-11\nc1 decision \"Dan drives Tuesday\"\n</open_items>\n"), "\(user)")
        let system = body["messages"]?[0]?["content"]?.stringValue ?? ""
        #expect(system.contains("<open_items> lists earlier nights' open items"))
        let schema = body["response_format"]?["json_schema"]?["schema"]
        #expect(schema?["properties"]?[KnownItems.key] != nil)
        #expect(schema?["required"]?.arrayValue?.contains("known") == true)

        // The move is read from the party's own week: Sunday the 13th, not Sunday the 6th after Friday's message.
        #expect(run.extraction.known.map(\.ref) == ["e1", "t1", "x9"])
        guard case .changed(.event(let moved))? = run.extraction.known.first?.kind else {
            Issue.record("e1 is not changed: \(run.extraction.known)")
            return
        }
        #expect(moved.date == LocalDate(iso: "2026-12-13") && moved.sources == ["x1"])
        #expect(run.extraction.known[1] == Verdict(ref: "t1", .met(for: ["u-lee"]), evidence: ["x2"]))
        let dropped = run.extraction.notes.filter { $0.kind == .dropped }.map(\.message)
        #expect(dropped.contains { $0.contains("'postponed' is no verdict") }, "\(dropped)")
        // The change citing only m99 went the way of any such new item; the empty change was dropped.
        #expect(dropped.contains { $0.contains("a change without its fields") }, "\(dropped)")
        #expect(run.extraction.notes.contains { $0.message.contains("m99") }, "\(run.extraction.notes)")

        // Through the reconciliation: the invented ref refused, the rest of the answer kept.
        let request = NightRequest(now: Self.now, timeZone: Self.zone, shownRefs: engine.shownRefs(input, features: Self.all),
                                   shownMessages: Set(input.messages.map(\.id)), participants: Set(Self.people.map(\.id)))
        #expect(request.shownRefs == ["e1", "t1", "c1"])
        let result = Reconciliation.apply(Self.state, request: request, answer: NightAnswer(extraction: run.extraction))
        #expect(result.refusals.map(\.kind) == [.unknownRef])
        #expect(result.state["e1"]?.body.keyDate == LocalDate(iso: "2026-12-13"))
        #expect(result.state["t1"]?.metFor == ["u-lee"])
        #expect(result.state["c1"]?.body.words == "Dan drives Tuesday")
    }

    @Test func aPerFeatureRequestListsOnlyItsFeaturesItemsAndDropsVerdictsOnOthers() async throws {
        let server = try FakeOpenAIServer { request in
            let name = request.json?["response_format"]?["json_schema"]?["name"]?.stringValue
            let met: JSONValue = ["ref": "t1", "verdict": "met", "for": [Self.p("u-lee")], "message_ids": [Self.m("x2")], "changed": nil]
            return Self.reply(request, known: name == "rsvps" ? nil : [met])
        }
        defer { server.stop() }
        let engine = try Self.engine(server, mode: .perFeature)
        let input = Self.input(state: Self.state)
        let run = try await engine.extract(input, features: [.calendarEvents, .deadlines, .rsvps])
        let bodies = server.requests.compactMap(\.json)
        func user(_ name: String) -> String {
            bodies.first { $0["response_format"]?["json_schema"]?["name"]?.stringValue == name }?["messages"]?.arrayValue?.last?["content"]?.stringValue ?? ""
        }
        #expect(user("calendar_events").contains("<open_items>\ne1 event") && !user("calendar_events").contains("t1 deadline"))
        #expect(user("deadlines").contains("<open_items>\nt1 deadline") && !user("deadlines").contains("e1 event"))
        // No open RSVP: the rsvps request is today's, without the section or the `known` list.
        #expect(!user("rsvps").contains("<open_items>"))
        let rsvpSchema = bodies.first { $0["response_format"]?["json_schema"]?["name"]?.stringValue == "rsvps" }?["response_format"]?["json_schema"]?["schema"]
        #expect(rsvpSchema?["properties"]?[KnownItems.key] == nil)
        // The deadlines request's verdict is kept; the events request's verdict on a deadline is dropped.
        #expect(run.extraction.known == [Verdict(ref: "t1", .met(for: ["u-lee"]), evidence: ["x2"])])
        #expect(run.extraction.notes.contains { $0.message.contains("an item of deadlines, which this request was not for") })
        #expect(engine.shownRefs(input, features: [.calendarEvents, .deadlines, .rsvps]) == ["e1", "t1"])
    }

    @Test func aBatchRequestCarriesTheOpenItemsAndItsAnswersKnownListIsDecoded() async throws {
        let server = try FakeOpenAIServer { Self.reply($0) }
        defer { server.stop() }
        let engine = try Self.engine(server, mode: .combined)
        let input = Self.input(state: Self.state)
        let plans = try engine.batchRequests(input, features: Self.all)
        let body = try #require(plans.first?.request.body())
        #expect(plans.count == 1)
        #expect(body["messages"]?.arrayValue?.last?["content"]?.stringValue?.contains("<open_items>\ne1 event") == true)
        let schema = try #require(body["response_format"]?["json_schema"]?["schema"])
        #expect(schema["properties"]?[KnownItems.key] != nil)
        guard case .object(var answer) = CombinedSchema.emptyAnswer(schema) else { Issue.record("no object"); return }
        answer[KnownItems.key] = .array(Array(Self.known.prefix(3)))
        let completion: JSONValue = ["id": "x", "object": "chat.completion", "created": 0, "model": "m",
                                     "choices": [["index": 0, "message": ["role": "assistant", "content": .string(JSONValue.object(answer).serialized())],
                                                  "finish_reason": "stop"]]]
        let run = try engine.decodeBatchAnswer(completion, feature: ExtractionEngine.combinedItem, features: Self.all,
                                               window: plans[0].window, input: input)
        #expect(run.extraction.known.map(\.ref) == ["e1", "t1", "x9"])
    }

    /// The versions pinned before open items existed.
    static let before = ["combined=3", "calendar_events=2", "deadlines=2", "decisions=2", "priority_messages=3", "rsvps=2"]
    /// The versions that added the open-items section and nothing else (later ones also change the always-on text).
    static let withSection = ["combined=4", "calendar_events=3", "deadlines=3", "decisions=3", "priority_messages=4", "rsvps=3"]

    @Test("a request without open items is byte for byte the one of the versions before them", arguments: [RequestMode.combined, .perFeature])
    func withoutOpenItemsTheRequestIsUnchanged(_ mode: RequestMode) async throws {
        let shipped = try PromptLibrary.load(directory: RepositoryPaths.root.appendingPathComponent("prompts"))
        let library = try shipped.pinning(PromptPins.parse(picks: Self.withSection, source: "test"))
        let old = try shipped.pinning(PromptPins.parse(picks: Self.before, source: "test"))
        #expect(library.active(id: "combined")?.version == 4 && old.active(id: "combined")?.version == 3)
        var bodies: [[String]] = []
        for prompts in [library, old, shipped] {
            let server = try FakeOpenAIServer { Self.reply($0) }
            defer { server.stop() }
            let engine = try Self.engine(server, mode: mode, library: prompts)
            // An open item of a feature not asked for does not count either.
            var state = ConversationState()
            if prompts.active(id: "combined")?.version != 3 { state = ConversationState(items: [Self.state.items[2]]) }
            _ = try await engine.extract(Self.input(state: state), features: [.calendarEvents, .deadlines, .rsvps])
            bodies.append(server.requests.map { String(decoding: $0.body, as: UTF8.self) }.sorted())
        }
        #expect(bodies[0].count == (mode == .combined ? 1 : 3))
        #expect(bodies[0] == bodies[1])
        // The shipped versions say more on every request, but nothing of open items when there are none to show.
        #expect(bodies[2].count == bodies[0].count)
        #expect((bodies[0] + bodies[2]).allSatisfy { !$0.contains("open_items") && !$0.contains("\"known\"") })
    }
}
