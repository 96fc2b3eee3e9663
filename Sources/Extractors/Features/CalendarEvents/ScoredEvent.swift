package import Core

/// A calendar event as a label holds it. Paired on a shared source and the same `date`; time, location and category
/// are compared on pairs. In a fixture `source` lists every acceptable message id, in a prediction the ids it cites.
package struct ScoredEvent: Sendable, Hashable, Codable {
    package var title: String
    package var date: LocalDate
    package var time: LocalTime?
    package var location: String?
    package var category: EventCategory
    package var source: [String]

    package init(title: String, date: LocalDate, time: LocalTime? = nil, location: String? = nil,
                category: EventCategory, source: [String]) {
        self.title = title
        self.date = date
        self.time = time
        self.location = location
        self.category = category
        self.source = source
    }

    enum CodingKeys: String, CodingKey { case title, date, time, location, category, source }

    /// Optional fields as explicit `null`, so written items have the fixture's shape.
    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(title, forKey: .title)
        try c.encode(date, forKey: .date)
        try c.encode(time, forKey: .time)
        try c.encode(location, forKey: .location)
        try c.encode(category, forKey: .category)
        try c.encode(source, forKey: .source)
    }
}

extension ScoredEvent: ScoredItem {
    package static var feature: ExtractionFeature { .calendarEvents }

    package static var labelSchema: JSONValue {
        [
            "type": "object",
            "required": ["title", "date", "time", "location", "category", "source"],
            "additionalProperties": false,
            "properties": [
                "title": ["type": "string", "minLength": 1],
                "date": ["$ref": "#/$defs/date"],
                "time": ["anyOf": [["$ref": "#/$defs/time"], ["type": "null"]]],
                "location": ["type": ["string", "null"]],
                "category": ["enum": .array(EventCategory.allCases.map { .string($0.rawValue) })],
                "source": ["$ref": "#/$defs/source"],
            ],
        ]
    }

    package var sources: [String] { source }
    package var keyDate: LocalDate? { date }

    package func fieldResults(predicted p: ScoredEvent) -> [(field: String, correct: Bool)] {
        [("time", time == p.time),
         ("location", FieldComparison.sameLocation(location, p.location)),
         ("category", category == p.category)]
    }
}

extension ExtractionSet {
    package var calendarEvents: [ScoredEvent] {
        get { self[ScoredEvent.self] }
        set { self[ScoredEvent.self] = newValue }
    }
}
