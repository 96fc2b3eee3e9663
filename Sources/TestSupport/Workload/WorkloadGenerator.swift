import Core
import Foundation

/// Builds a realistic, reproducible scan workload: parent group chats (3 to 8 people) and 1:1 chats with a few
/// messages a day of history, and about a tenth of the conversations busy on the last day (about 20 new messages
/// each). Everything, ids included, follows from the spec; nothing reads the system's randomness.
package enum WorkloadGenerator {
    package struct InvalidSpec: Error, CustomStringConvertible {
        package let description: String
    }

    static let firstNames = ["Maria", "Dan", "Priya", "Jenny", "Ana", "Lee", "Sam", "Fatima", "Tom", "Keiko", "Omar", "Grace",
                             "Diego", "Hannah", "Wei", "Chloe", "Marcus", "Aisha", "Ben", "Rosa"]
    static let lastNames = ["Lopez", "Kim", "Shah", "Wu", "Ruiz", "Park", "Okafor", "Nguyen", "Miller", "Tanaka", "Haddad",
                            "Cohen", "Silva", "Brown", "Novak", "Khan"]
    static let zones = ["America/New_York", "America/New_York", "America/New_York", "America/Chicago",
                        "America/Los_Angeles", "America/Denver", "Europe/London"]
    static let groupNames = ["Room 4B parents", "U9 soccer parents", "Riverside PTA", "Carpool crew", "Swim team families",
                             "3rd grade class", "Birthday planning", "Scout troop 12", "Piano studio families", "Oak Street neighbors"]

    package static func make(_ spec: WorkloadSpec) throws -> Workload {
        guard (1...1_000_000).contains(spec.conversations) else {
            throw InvalidSpec(description: "--conversations must be between 1 and 1000000, not \(spec.conversations)")
        }
        guard (1...365).contains(spec.days) else { throw InvalidSpec(description: "--days must be between 1 and 365, not \(spec.days)") }
        let now = floor(spec.now.timeIntervalSince1970)
        let lastDayStart = now - 86_400
        let users = makeUsers(count: max(8, spec.conversations * 2), seed: spec.seed)
        let active = activeSet(spec)
        var conversations: [Workload.Conversation] = []
        var messages: [Workload.Message] = []
        var watermarks: [Workload.Watermark] = []
        conversations.reserveCapacity(spec.conversations)
        for index in 0..<spec.conversations {
            var rng = SplitMix64.stream(seed: spec.seed, index: UInt64(index), salt: 2)
            let isGroup = rng.chance(spec.groupShare)
            var members: [Int] = []
            let size = isGroup ? rng.int(3...8) : 2
            while members.count < size {
                let candidate = rng.int(0...(users.count - 1))
                if !members.contains(candidate) { members.append(candidate) }
            }
            let people = members.map { users[$0] }
            let name = isGroup
                ? "\(rng.pick(groupNames)) #\(index + 1)"
                : "\(people[0].displayName) & \(people[1].displayName) #\(index + 1)"
            let conversation = Workload.Conversation(
                id: rng.uuid(), name: name, isGroup: isGroup, participantIDs: people.map(\.id), isActive: active.contains(index))
            let times = sendTimes(&rng, spec: spec, now: now, active: conversation.isActive)
            let zone = TimeZone(identifier: readerZone(people)) ?? TimeZone(identifier: "UTC")!
            var conversationMessages: [Workload.Message] = []
            for time in times {
                let sender = people[rng.int(0...(people.count - 1))]
                let sentAt = Date(timeIntervalSince1970: time)
                let text = WorkloadText(day: LocalDate(sentAt, in: zone), kid: rng.pick(WorkloadText.kids))
                conversationMessages.append(Workload.Message(
                    id: rng.uuid(), conversationID: conversation.id, senderID: sender.id, text: text.line(&rng), sentAt: sentAt))
            }
            if let last = conversationMessages.last(where: { $0.sentAt.timeIntervalSince1970 < lastDayStart }) {
                watermarks.append(Workload.Watermark(conversationID: conversation.id, sentAt: last.sentAt, messageID: last.id))
            }
            conversations.append(conversation)
            messages += conversationMessages
        }
        return Workload(spec: spec, users: users, conversations: conversations, messages: messages, watermarks: watermarks,
                        lastDayStart: Date(timeIntervalSince1970: lastDayStart))
    }

    private static func makeUsers(count: Int, seed: UInt64) -> [Workload.User] {
        (0..<count).map { index in
            var rng = SplitMix64.stream(seed: seed, index: UInt64(index), salt: 1)
            let id = rng.uuid()
            return Workload.User(
                id: id, username: "bench_\(id.uuidString.prefix(13).lowercased())",
                displayName: "\(rng.pick(firstNames)) \(rng.pick(lastNames))", timeZone: rng.pick(zones))
        }
    }

    /// Exactly round(N × share) conversations, at least one, chosen by seeded keys.
    private static func activeSet(_ spec: WorkloadSpec) -> Set<Int> {
        let count = min(spec.conversations, max(1, Int((Double(spec.conversations) * spec.activeShare).rounded())))
        let keyed = (0..<spec.conversations).map { index -> (UInt64, Int) in
            var rng = SplitMix64.stream(seed: spec.seed, index: UInt64(index), salt: 3)
            return (rng.next(), index)
        }
        return Set(keyed.sorted { $0 < $1 }.prefix(count).map(\.1))
    }

    /// Whole-second send times, strictly increasing: a few a day before the last day (at least one when there are
    /// earlier days), and about `newMessagesPerActive` on the last day for an active conversation.
    private static func sendTimes(_ rng: inout SplitMix64, spec: WorkloadSpec, now: Double, active: Bool) -> [Double] {
        var times: [Double] = []
        let chattiness = rng.int(1...4)
        for day in 0..<(spec.days - 1) {
            let dayStart = now - Double(spec.days - day) * 86_400
            for _ in 0..<rng.int(0...(chattiness + 1)) { times.append(dayStart + Double(rng.int(6 * 3600...23 * 3600))) }
        }
        if spec.days > 1, times.isEmpty { times.append(now - Double(spec.days) * 86_400 + Double(rng.int(8 * 3600...20 * 3600))) }
        if active {
            let spread = max(1, spec.newMessagesPerActive / 5)
            for _ in 0..<max(1, rng.int((spec.newMessagesPerActive - spread)...(spec.newMessagesPerActive + spread))) {
                times.append(now - 86_400 + Double(rng.int(60...(86_400 - 3600))))
            }
        }
        times.sort()
        for index in times.indices.dropFirst() where times[index] <= times[index - 1] { times[index] = times[index - 1] + 1 }
        return times
    }

    /// The zone `ConversationReader` reads dates in: the one most participants use (ties: the first by name),
    /// so the dates written into messages match what the extractors see.
    private static func readerZone(_ people: [Workload.User]) -> String {
        var counts: [String: Int] = [:]
        for person in people { counts[person.timeZone, default: 0] += 1 }
        return counts.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key ?? "UTC"
    }
}
