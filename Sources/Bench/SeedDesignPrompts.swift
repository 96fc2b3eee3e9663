import Core

/// The seed's five edge-function prompts and response schemas (seed document section 5, "AI Features
/// Implementation"), copied as the functions send them: the system prompts keep the template literals' indentation,
/// and the schemas are the zod schemas as the AI SDK turns them into JSON Schema.
enum SeedDesignPrompts {
    static func calendar(today: String) -> String {
        [
            "You are an assistant that extracts calendar events from parent group chat messages.",
            "          ",
            "          Extract:",
            "          - School events (field trips, picture day, parent-teacher conferences)",
            "          - Medical appointments",
            "          - Children's activities (soccer practice, dance class, birthday parties)",
            "          - Social events (playdates, carpools)",
            "          ",
            "          Important:",
            "          - Only extract events with clear dates",
            "          - Today is \(today)",
            "          - Convert relative dates (tomorrow, next Tuesday) to absolute dates",
            "          - Be conservative - only extract if you're confident",
            "          - Provide the message ID for each event",
        ].joined(separator: "\n")
    }

    static let decisions = [
        "Extract decisions from parent group chat messages.",
        "          ",
        "          A decision is:",
        "          - A clear agreement or choice made by the group",
        "          - Examples: \"Let's do pizza Friday\", \"I'll drive carpool Tuesday\", \"Meeting at 3pm works\"",
        "          ",
        "          Look for:",
        "          - Explicit agreements (\"sounds good\", \"let's do it\", \"agreed\")",
        "          - Plans with consensus",
        "          - Assignments (\"I'll do X\", \"You handle Y\")",
        "          ",
        "          Ignore:",
        "          - Questions or proposals without consensus",
        "          - Individual opinions without agreement",
        "          - Tentative suggestions",
    ].joined(separator: "\n")

    static let priority = [
        "Identify priority messages in parent group chat.",
        "          ",
        "          URGENT priority:",
        "          - School emergencies or closures",
        "          - Last-minute changes to pick-up times",
        "          - Safety concerns",
        "          - Time-sensitive requests expiring soon",
        "          ",
        "          HIGH priority:",
        "          - RSVP requests with deadlines",
        "          - Permission slips due soon",
        "          - Direct questions to the user",
        "          - Schedule conflicts",
        "          - Important school announcements",
        "          ",
        "          MEDIUM priority:",
        "          - General reminders",
        "          - Upcoming events (not urgent)",
        "          - FYI information that's useful",
        "          ",
        "          Not priority:",
        "          - General chat/social",
        "          - Already resolved issues",
        "          - Old information",
    ].joined(separator: "\n")

    static let rsvps = [
        "Extract RSVP requests and track responses from parent messages.",
        "          ",
        "          RSVP request patterns:",
        "          - \"Can you come to...\"",
        "          - \"Please let me know if...\"",
        "          - \"RSVP by Friday\"",
        "          - \"Who's coming to...\"",
        "          ",
        "          Response patterns:",
        "          - \"We'll be there\"",
        "          - \"Can't make it\"",
        "          - \"Count us in\"",
        "          - \"Sorry, we have plans\"",
        "          ",
        "          Track both requests and responses.",
    ].joined(separator: "\n")

    static func deadlines(today: String) -> String {
        [
            "Extract deadlines and tasks from parent messages.",
            "          ",
            "          Today is \(today)",
            "          ",
            "          Look for:",
            "          - Permission slips due dates",
            "          - School forms deadlines",
            "          - Payment due dates",
            "          - Registration closing dates",
            "          - RSVP deadlines",
            "          - Appointment scheduling windows",
            "          ",
            "          Deadline phrases:",
            "          - \"due by Friday\"",
            "          - \"must submit by...\"",
            "          - \"deadline is...\"",
            "          - \"no later than...\"",
            "          - \"before Monday\"",
            "          ",
            "          Convert relative dates to absolute dates.",
            "          Prioritize based on urgency (how soon is deadline).",
        ].joined(separator: "\n")
    }

    /// The user message: the function's lead-in, a blank line, then the formatted messages.
    static func user(_ feature: SeedDesignFeature, messagesText: String) -> String {
        let lead = switch feature {
        case .calendar: "Extract calendar events from these messages:"
        case .decisions: "Extract decisions from:"
        case .priority: "Analyze these messages:"
        case .rsvps: "Extract RSVPs:"
        case .deadlines: "Extract deadlines:"
        }
        return lead + "\n\n" + messagesText
    }

    static func system(_ feature: SeedDesignFeature, today: String) -> String {
        switch feature {
        case .calendar: calendar(today: today)
        case .decisions: decisions
        case .priority: priority
        case .rsvps: rsvps
        case .deadlines: deadlines(today: today)
        }
    }

    static func schema(_ feature: SeedDesignFeature) -> JSONValue {
        switch feature {
        case .calendar:
            root("events", object([
                ("title", string("Brief event title")),
                ("date", string("Date in YYYY-MM-DD format")),
                ("time", nullableString("Time in HH:MM format (24-hour) or null if not specified")),
                ("location", nullableString("Location or null if not mentioned")),
                ("description", string("Additional details about the event")),
                ("category", oneOf(["school", "medical", "activity", "social", "other"])),
                ("confidence", score("Confidence score 0-1")),
                ("sourceMessageId", string("ID of the message this came from")),
            ]))
        case .decisions:
            root("decisions", object([
                ("messageId", string()),
                ("decision", string("Clear statement of what was decided")),
                ("category", oneOf(["carpool", "activity", "schedule", "purchase", "food", "other"])),
                ("participants", ["type": "array", "items": string(), "description": "Names of people involved in decision"]),
                ("deadline", nullableString("Deadline if mentioned (YYYY-MM-DD)")),
                ("confidence", score()),
            ]))
        case .priority:
            root("priorityMessages", object([
                ("messageId", string()),
                ("priority", oneOf(["urgent", "high", "medium"])),
                ("reason", string("Why this message is priority")),
                ("actionRequired", ["type": "boolean", "description": "Does this need a response/action?"]),
            ]))
        case .rsvps:
            root("rsvps", object([
                ("messageId", string("ID of message with RSVP request")),
                ("eventName", string("Name of the event")),
                ("requestedBy", string("Who requested the RSVP")),
                ("deadline", nullableString("RSVP deadline (YYYY-MM-DD)")),
                ("eventDate", string("Date of event (YYYY-MM-DD)")),
                ("responses", [
                    "type": "array",
                    "items": object([("person", string()), ("response", oneOf(["yes", "no", "maybe"])), ("messageId", string())]),
                    "description": "Who responded and how",
                ]),
            ]))
        case .deadlines:
            root("deadlines", object([
                ("messageId", string()),
                ("task", string("What needs to be done")),
                ("deadline", string("Deadline date (YYYY-MM-DD)")),
                ("category", oneOf(["school", "medical", "activity", "payment", "other"])),
                ("priority", oneOf(["low", "medium", "high", "urgent"])),
                ("details", string("Additional context")),
            ]))
        }
    }

    /// `z.object({ key: z.array(item) })` as zod-to-json-schema writes it.
    private static func root(_ key: String, _ item: JSONValue) -> JSONValue {
        ["type": "object", "properties": [key: ["type": "array", "items": item]], "required": [.string(key)],
         "additionalProperties": false, "$schema": "http://json-schema.org/draft-07/schema#"]
    }

    private static func object(_ properties: [(String, JSONValue)]) -> JSONValue {
        ["type": "object", "properties": .object(JSONObject(properties)),
         "required": .array(properties.map { .string($0.0) }), "additionalProperties": false]
    }

    private static func string(_ description: String? = nil) -> JSONValue {
        description.map { ["type": "string", "description": .string($0)] } ?? ["type": "string"]
    }

    private static func nullableString(_ description: String) -> JSONValue {
        ["type": ["string", "null"], "description": .string(description)]
    }

    private static func oneOf(_ values: [String]) -> JSONValue {
        ["type": "string", "enum": .array(values.map { .string($0) })]
    }

    private static func score(_ description: String? = nil) -> JSONValue {
        var schema: JSONObject = ["type": "number", "minimum": 0, "maximum": 1]
        if let description { schema["description"] = .string(description) }
        return .object(schema)
    }
}
