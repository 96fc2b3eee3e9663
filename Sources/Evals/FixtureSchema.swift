import JSONKit

/// The fixture schema, compiled into the module so the loader needs no resource lookup at run time.
///
/// Must stay identical to `schemas/eval-fixture.schema.json` (the file editors and other tools use);
/// a test compares the two.
enum FixtureSchema {
    static let text = #"""
{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "https://messageai.example/schemas/eval-fixture.schema.json",
  "title": "MessageAI eval fixture",
  "description": "One labelled chat: the messages an extractor reads and the items it should find. Dates are YYYY-MM-DD, times HH:MM (24 h), instants ISO 8601 with an offset.",
  "type": "object",
  "required": ["id", "description", "reference", "participants", "messages", "expected"],
  "additionalProperties": false,
  "properties": {
    "id": {"$ref": "#/$defs/id"},
    "description": {"type": "string", "minLength": 1},
    "reference": {
      "description": "When and for whom the chat is read: relative dates resolve in this time zone; RSVP status is this user's.",
      "type": "object",
      "required": ["now", "timezone", "user"],
      "additionalProperties": false,
      "properties": {
        "now": {"$ref": "#/$defs/instant"},
        "timezone": {"type": "string", "minLength": 1},
        "user": {"$ref": "#/$defs/id"}
      }
    },
    "participants": {
      "type": "array",
      "minItems": 1,
      "items": {
        "type": "object",
        "required": ["id", "name"],
        "additionalProperties": false,
        "properties": {
          "id": {"$ref": "#/$defs/id"},
          "name": {"type": "string", "minLength": 1}
        }
      }
    },
    "messages": {
      "type": "array",
      "minItems": 1,
      "items": {
        "type": "object",
        "required": ["id", "sender", "sent_at", "text"],
        "additionalProperties": false,
        "properties": {
          "id": {"$ref": "#/$defs/id"},
          "sender": {"$ref": "#/$defs/id"},
          "sent_at": {"$ref": "#/$defs/instant"},
          "text": {"type": "string", "minLength": 1}
        }
      }
    },
    "expected": {
      "type": "object",
      "required": ["calendar_events", "decisions", "priority_messages", "rsvps", "deadlines"],
      "additionalProperties": false,
      "properties": {
        "calendar_events": {"type": "array", "items": {"$ref": "#/$defs/calendarEvent"}},
        "decisions": {"type": "array", "items": {"$ref": "#/$defs/decision"}},
        "priority_messages": {"type": "array", "items": {"$ref": "#/$defs/priorityMessage"}},
        "rsvps": {"type": "array", "items": {"$ref": "#/$defs/rsvp"}},
        "deadlines": {"type": "array", "items": {"$ref": "#/$defs/deadline"}}
      }
    }
  },
  "$defs": {
    "id": {"type": "string", "pattern": "^[a-z0-9][a-z0-9_-]*$"},
    "instant": {"type": "string", "format": "date-time", "pattern": "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|[+-]\\d{2}:\\d{2})$"},
    "date": {"type": "string", "format": "date", "pattern": "^\\d{4}-\\d{2}-\\d{2}$"},
    "time": {"type": "string", "pattern": "^([01]\\d|2[0-3]):[0-5]\\d$"},
    "source": {
      "description": "Every message id that is an acceptable citation for the item.",
      "type": "array",
      "minItems": 1,
      "uniqueItems": true,
      "items": {"$ref": "#/$defs/id"}
    },
    "calendarEvent": {
      "type": "object",
      "required": ["title", "date", "time", "location", "category", "source"],
      "additionalProperties": false,
      "properties": {
        "title": {"type": "string", "minLength": 1},
        "date": {"$ref": "#/$defs/date"},
        "time": {"anyOf": [{"$ref": "#/$defs/time"}, {"type": "null"}]},
        "location": {"type": ["string", "null"]},
        "category": {"enum": ["school", "medical", "activity", "social", "other"]},
        "source": {"$ref": "#/$defs/source"}
      }
    },
    "decision": {
      "type": "object",
      "required": ["decision", "category", "source"],
      "additionalProperties": false,
      "properties": {
        "decision": {"type": "string", "minLength": 1},
        "category": {"enum": ["carpool", "activity", "schedule", "purchase", "food", "other"]},
        "source": {"$ref": "#/$defs/source"}
      }
    },
    "priorityMessage": {
      "type": "object",
      "required": ["message", "priority", "action_required"],
      "additionalProperties": false,
      "properties": {
        "message": {"$ref": "#/$defs/id"},
        "priority": {"enum": ["urgent", "high", "medium"]},
        "action_required": {"type": "boolean"}
      }
    },
    "rsvp": {
      "type": "object",
      "required": ["event", "event_date", "deadline", "requested_by", "source", "status", "response"],
      "additionalProperties": false,
      "properties": {
        "event": {"type": "string", "minLength": 1},
        "event_date": {"$ref": "#/$defs/date"},
        "deadline": {"anyOf": [{"$ref": "#/$defs/date"}, {"type": "null"}]},
        "requested_by": {"$ref": "#/$defs/id"},
        "source": {"$ref": "#/$defs/source"},
        "status": {"enum": ["pending", "responded"]},
        "response": {"enum": ["yes", "no", "maybe", null]}
      },
      "if": {"properties": {"status": {"const": "pending"}}},
      "then": {"properties": {"response": {"const": null}}},
      "else": {"properties": {"response": {"enum": ["yes", "no", "maybe"]}}}
    },
    "deadline": {
      "type": "object",
      "required": ["task", "deadline", "category", "source"],
      "additionalProperties": false,
      "properties": {
        "task": {"type": "string", "minLength": 1},
        "deadline": {"$ref": "#/$defs/date"},
        "category": {"enum": ["school", "medical", "activity", "payment", "other"]},
        "source": {"$ref": "#/$defs/source"}
      }
    }
  }
}
"""#
}

extension FixtureSchema {
    /// Nil only if the text above is broken, which the loader reports and a test rules out.
    static let compiled: JSONSchema? = {
        guard let json = try? JSONValue.parse(text) else { return nil }
        return try? JSONSchema(json)
    }()
}
