import AgentRuntime
import Foundation
import Bench
import JobsKit
import Core
import Testing
import TestSupport

@Suite("Bench tokens: the seed's design")
struct SeedDesignSimulationTests {
    static let now = Date(timeIntervalSince1970: 1_772_625_600) // 2026-03-04T12:00:00Z

    /// A conversation with `people` participants and one message per `ages` entry, `ages` hours before `now`.
    static func conversation(people: Int, hoursAgo ages: [Double]) -> SeedDesignConversation {
        let ids = (0..<people).map { _ in UUID() }
        let messages = ages.sorted(by: >).enumerated().map { index, hours in
            SeedDesignConversation.Message(
                id: UUID(), senderName: "Parent \(index % people)", text: "Message \(index): soccer is on 3/\(index + 5)",
                sentAt: now.addingTimeInterval(-hours * 3600))
        }
        return SeedDesignConversation(id: UUID(), participantIDs: ids, messages: messages)
    }

    @Test func fiveFeaturesPerConversationPlusRSVPsAndDeadlinesPerParticipant() {
        let conversations = [Self.conversation(people: 2, hoursAgo: [1, 50]), Self.conversation(people: 3, hoursAgo: [2]),
                             Self.conversation(people: 5, hoursAgo: [3, 4, 400])]
        let simulation = SeedDesignSimulation(now: Self.now)
        let requests = conversations.flatMap { simulation.requests(for: $0) }
        // 3 conversations x (calendar, decisions, priority) + (2 + 3 + 5) participants x (RSVPs, deadlines)
        #expect(requests.count == 3 * 3 + 2 * (2 + 3 + 5))
        #expect(requests.count == 5 * 3 + 2 * ((2 - 1) + (3 - 1) + (5 - 1)))
        for feature in [SeedDesignFeature.calendar, .decisions, .priority] {
            #expect(requests.count(where: { $0.feature == feature }) == 3)
            #expect(requests.filter { $0.feature == feature }.allSatisfy { $0.userID == nil })
        }
        for feature in [SeedDesignFeature.rsvps, .deadlines] {
            #expect(requests.count(where: { $0.feature == feature }) == 10)
            #expect(Set(requests.filter { $0.feature == feature }.compactMap(\.userID)) == Set(conversations.flatMap(\.participantIDs)))
        }
        #expect(conversations.map(SeedDesignSimulation.fullRequestCount(for:)) == [3 + 4, 3 + 6, 3 + 10])
    }

    @Test func aGeneratedWorkloadSendsTheSameCountWhenNoWindowIsSkipped() throws {
        let workload = try WorkloadGenerator.make(WorkloadSpec(conversations: 3, days: 30, seed: 7, now: Self.now))
        var simulation = SeedDesignSimulation(now: workload.spec.now)
        simulation.skipEmptyWindows = false
        let conversations = SeedDesignConversation.all(from: workload)
        let participants = workload.conversations.reduce(0) { $0 + $1.participantIDs.count }
        #expect(conversations.flatMap { simulation.requests(for: $0) }.count == 3 * 3 + 2 * participants)
        #expect(conversations.map(\.messages.count).reduce(0, +) == workload.messages.count)
    }

    @Test func windowsReachBackPerFeatureAndEmptyOnesAreSkipped() {
        // 20 days old: only the 30-day RSVP window holds it.
        let old = Self.conversation(people: 4, hoursAgo: [20 * 24])
        var simulation = SeedDesignSimulation(now: Self.now)
        let requests = simulation.requests(for: old)
        #expect(requests.map(\.feature) == Array(repeating: .rsvps, count: 4))
        // 10 days old: RSVPs and deadlines.
        let tenDays = Self.conversation(people: 2, hoursAgo: [10 * 24])
        #expect(Set(simulation.requests(for: tenDays).map(\.feature)) == [.rsvps, .deadlines])
        simulation.skipEmptyWindows = false
        #expect(simulation.requests(for: old).count == SeedDesignSimulation.fullRequestCount(for: old))
    }

    @Test func messagesAreFormattedTheSeedsWay() throws {
        let conversation = Self.conversation(people: 2, hoursAgo: Array(1...60).map(Double.init))
        let requests = SeedDesignSimulation(now: Self.now).requests(for: conversation)
        func user(_ feature: SeedDesignFeature) throws -> String {
            let request = try #require(requests.first { $0.feature == feature }).request
            guard case .user(let text) = try #require(request.messages.last) else { Issue.record("no user message"); return "" }
            return text
        }
        let newest = try #require(conversation.messages.last)
        let calendar = try user(.calendar)
        #expect(calendar.hasPrefix("Extract calendar events from these messages:\n\n["))
        #expect(calendar.contains("+00:00] \(newest.senderName): \(newest.text)"))
        let deadlines = try user(.deadlines)
        #expect(deadlines.contains("[\(newest.id.uuidString.lowercased())] \(newest.text)"))
        #expect(!deadlines.contains(newest.senderName))
        let priority = try user(.priority).dropFirst("Analyze these messages:\n\n".count).split(separator: "\n")
        // The last 24 hours, newest first.
        #expect(priority.count == 24)
        #expect(priority.first == "[\(newest.id.uuidString.lowercased())] \(newest.senderName): \(newest.text)")
        let calendarRequest = try #require(requests.first { $0.feature == .calendar }).request
        guard case .system(let system) = try #require(calendarRequest.messages.first) else { Issue.record("no system message"); return }
        #expect(system.contains("Today is 2026-03-04"))
        #expect(calendarRequest.responseFormat != nil)
    }

    @Test func sendingBillsEveryRequestByTheServersRule() async throws {
        let server = try AgentBenchmarkServer(steps: 1)
        defer { server.stop() }
        let client = OpenAIClient(configuration: LLMConfiguration(baseURL: server.baseURL, retryPolicy: .noRetries))
        let conversations = [Self.conversation(people: 2, hoursAgo: [1, 30]), Self.conversation(people: 3, hoursAgo: [5, 200])]
        let simulation = SeedDesignSimulation(now: Self.now)
        let planned = conversations.flatMap { simulation.requests(for: $0) }
        let totals = try await simulation.send(conversations, to: client, concurrency: 2)
        #expect(totals.conversations == 2)
        #expect(totals.requests == planned.count)
        #expect(totals.skippedEmptyWindows == conversations.map(SeedDesignSimulation.fullRequestCount(for:)).reduce(0, +) - planned.count)
        let expected = planned.reduce(0) { $0 + TokenCostRule.promptTokens($1.request.body()) }
        #expect(totals.promptTokens == expected)
        #expect(totals.completionTokens > 0)
        #expect(totals.requestsByFeature.values.reduce(0, +) == planned.count)
    }
}
