import Foundation
package import Core

/// Holds the assistant to the code's findings: it may rank and explain them, never add one. Every item of the
/// model's answer must match a finding code produced (a conflict by exactly its two event ids, an RSVP, a deadline or
/// a priority message by its id) and cite only ids the run was given (the findings) or its tools returned. Anything else
/// is dropped and reported, never stored as a finding.
package struct FindingCheck: Sendable {
    /// One item of the model's answer that was dropped, and why.
    package struct Violation: Sendable, Hashable, Codable {
        package var section: String
        package var reason: String
        package var item: String
    }

    /// An item kept: the finding it explains, its place among every item kept (1 = first, by the model's ranks) and
    /// the model's text.
    package struct Accepted: Sendable, Hashable {
        package var kind: String
        package var subjectKey: String
        package var rank: Int
        package var explanation: String
    }

    package struct Outcome: Sendable {
        package var accepted: [Accepted] = []
        package var violations: [Violation] = []
        /// The answer with the dropped items removed, as stored in `assistant_runs`.
        package var output: JSONValue
    }

    let findings: [OpenFinding]
    /// Ids the run saw: the findings' citations and every id in a tool result.
    let knownIDs: Set<UUID>

    package init(findings: [OpenFinding], toolResults: [String]) {
        self.findings = findings
        var ids = Set(findings.flatMap(\.cites).map(\.id))
        for text in toolResults { ids.formUnion(Self.uuids(in: text)) }
        knownIDs = ids
    }

    /// The answer's lists: the section, the finding kind it raises, the id field and the text field.
    static let sections = [("conflicts", "conflict", "event_ids", "description"), ("pending_rsvps", "rsvp", "rsvp_id", "note"),
                           ("near_deadlines", "deadline", "deadline_id", "note"), ("priority_messages", "priority", "message_id", "note")]

    package func check(_ output: JSONValue) -> Outcome {
        var outcome = Outcome(output: output)
        var checked = output.objectValue ?? [:]
        var ranked: [(given: Int, order: Int, item: Accepted)] = []
        for (section, kind, field, textField) in Self.sections {
            var kept: [JSONValue] = []
            for item in output[section]?.arrayValue ?? [] {
                let texts = item[field]?.arrayValue?.compactMap(\.stringValue) ?? item[field]?.stringValue.map { [$0] } ?? []
                let ids = texts.compactMap { UUID(uuidString: $0.trimmingCharacters(in: .whitespaces)) }
                let explanation = item[textField]?.stringValue ?? ""
                func drop(_ reason: String) {
                    outcome.violations.append(Violation(section: section, reason: reason, item: String(item.serialized().prefix(500))))
                }
                guard !texts.isEmpty, ids.count == texts.count, ids.allSatisfy(knownIDs.contains) else {
                    drop("cites a row no tool returned: \(texts.joined(separator: ", ").prefix(200))")
                    continue
                }
                let match = findings.first { finding in
                    finding.kind == kind && (kind == "conflict" ? finding.citedIDs == Set(ids) : finding.citedIDs.contains(ids[0]))
                }
                guard let match else {
                    drop("not a finding code produced")
                    continue
                }
                guard !ranked.contains(where: { $0.item.subjectKey == match.subjectKey }) else {
                    drop("the same finding twice")
                    continue
                }
                kept.append(item)
                // The model's rank orders the findings of every list together; a missing or repeated one falls back to
                // the answer's order.
                let given = item["rank"]?.integerValue.map(Int.init) ?? Int.max
                ranked.append((given: given, order: ranked.count,
                               item: Accepted(kind: kind, subjectKey: match.subjectKey, rank: 0, explanation: explanation)))
            }
            checked[section] = .array(kept)
        }
        outcome.accepted = ranked.sorted { ($0.given, $0.order) < ($1.given, $1.order) }.enumerated().map { place, entry in
            var accepted = entry.item
            accepted.rank = place + 1
            return accepted
        }
        outcome.output = .object(checked)
        return outcome
    }

    static func uuids(in text: String) -> Set<UUID> {
        var found = Set<UUID>()
        let chars = Array(text.utf8)
        var index = 0
        while index + 36 <= chars.count {
            let dash = UInt8(ascii: "-")
            if chars[index + 8] == dash, chars[index + 13] == dash, chars[index + 18] == dash, chars[index + 23] == dash,
               let id = UUID(uuidString: String(decoding: chars[index..<(index + 36)], as: UTF8.self)) {
                found.insert(id)
                index += 36
            } else {
                index += 1
            }
        }
        return found
    }
}
