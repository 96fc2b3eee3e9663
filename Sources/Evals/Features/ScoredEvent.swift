import Chrono
import FeatureKit
import JSONKit

/// A calendar event as a label holds it. Paired on a shared source and the same `date`; time, location and category
/// are compared on pairs. In a fixture `source` lists every acceptable message id, in a prediction the ids it cites.
public struct ScoredEvent: Sendable, Hashable, Codable {
    public var title: String
    public var date: LocalDate
    public var time: LocalTime?
    public var location: String?
    public var category: EventCategory
    public var source: [String]

    public init(title: String, date: LocalDate, time: LocalTime? = nil, location: String? = nil,
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
    public func encode(to encoder: any Encoder) throws {
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
    public static var feature: ExtractionFeature { .calendarEvents }

    public static var labelSchema: JSONValue {
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

    public var sources: [String] { source }
    public var keyDate: LocalDate? { date }

    public func fieldResults(predicted p: ScoredEvent) -> [(field: String, correct: Bool)] {
        [("time", time == p.time),
         ("location", FieldComparison.sameLocation(location, p.location)),
         ("category", category == p.category)]
    }
}

extension ExtractionSet {
    public var calendarEvents: [ScoredEvent] {
        get { self[ScoredEvent.self] }
        set { self[ScoredEvent.self] = newValue }
    }
}
