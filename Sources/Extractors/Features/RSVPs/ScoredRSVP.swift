package import Core

/// An RSVP request as a label holds it, from the fixture's reference user's point of view. Paired on a shared source
/// and the same `event_date`; the user's status and answer are compared on pairs.
package struct ScoredRSVP: Sendable, Hashable, Codable {
    package var event: String
    package var eventDate: LocalDate
    package var deadline: LocalDate?
    /// Participant id of whoever asked for the answer.
    package var requestedBy: String
    package var source: [String]
    /// The reference user's status and answer, not the group's.
    package var status: RSVPStatus
    package var response: RSVPResponse?

    package init(event: String, eventDate: LocalDate, deadline: LocalDate? = nil, requestedBy: String,
                source: [String], status: RSVPStatus, response: RSVPResponse? = nil) {
        self.event = event
        self.eventDate = eventDate
        self.deadline = deadline
        self.requestedBy = requestedBy
        self.source = source
        self.status = status
        self.response = response
    }

    enum CodingKeys: String, CodingKey {
        case event, deadline, source, status, response
        case eventDate = "event_date"
        case requestedBy = "requested_by"
    }

    /// Optional fields as explicit `null`, so written items have the fixture's shape.
    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(event, forKey: .event)
        try c.encode(eventDate, forKey: .eventDate)
        try c.encode(deadline, forKey: .deadline)
        try c.encode(requestedBy, forKey: .requestedBy)
        try c.encode(source, forKey: .source)
        try c.encode(status, forKey: .status)
        try c.encode(response, forKey: .response)
    }
}

extension ScoredRSVP: ScoredItem {
    package static var feature: ExtractionFeature { .rsvps }

    /// A pending request has no answer (`response: null`, or no `response` at all, as docs/nights-format.md writes
    /// it); an answered one has one of the three.
    package static var labelSchema: JSONValue {
        let answers = JSONValue.array(RSVPResponse.allCases.map { .string($0.rawValue) })
        return [
            "type": "object",
            "required": ["event", "event_date", "deadline", "requested_by", "source", "status"],
            "additionalProperties": false,
            "properties": [
                "event": ["type": "string", "minLength": 1],
                "event_date": ["$ref": "#/$defs/date"],
                "deadline": ["anyOf": [["$ref": "#/$defs/date"], ["type": "null"]]],
                "requested_by": ["$ref": "#/$defs/id"],
                "source": ["$ref": "#/$defs/source"],
                "status": ["enum": .array(RSVPStatus.allCases.map { .string($0.rawValue) })],
                "response": ["enum": .array((answers.arrayValue ?? []) + [.null])],
            ],
            "if": ["properties": ["status": ["const": .string(RSVPStatus.pending.rawValue)]]],
            "then": ["properties": ["response": ["const": .null]]],
            "else": ["required": ["response"], "properties": ["response": ["enum": answers]]],
        ]
    }

    package var sources: [String] { source }
    package var keyDate: LocalDate? { eventDate }
    package var participantReferences: [(path: [JSONPathComponent], id: String)] { [([.key("requested_by")], requestedBy)] }

    package func fieldResults(predicted p: ScoredRSVP) -> [(field: String, correct: Bool)] {
        [("status", status == p.status), ("response", response == p.response)]
    }
}

extension ExtractionSet {
    package var rsvps: [ScoredRSVP] {
        get { self[ScoredRSVP.self] }
        set { self[ScoredRSVP.self] = newValue }
    }
}
