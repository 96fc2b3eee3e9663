import Testing
@testable import Extractors

@Suite("Predictions file")
struct PredictionsFileTests {
    let ids: Set<String> = ["class-picnic", "snow-day"]

    private func problems(_ text: String) -> [String] {
        do {
            _ = try PredictionsFile.parse(text, file: "run.jsonl", fixtureIDs: ids)
            return []
        } catch {
            return error.problems.map(\.description)
        }
    }

    @Test func parsesLinesIntoTypedItems() throws {
        let text = """
            {"fixture": "class-picnic", "feature": "deadlines", "items": [{"task": "slip", "deadline": "2026-03-06", "category": "school", "source": ["m2"]}]}

            {"fixture": "class-picnic", "feature": "calendar_events", "items": [{"title": "Picnic", "date": "2026-03-07", "time": "11:00", "location": null, "category": "school", "source": ["m1"]}], "model": "x"}
            {"fixture": "snow-day", "feature": "priority_messages", "items": [{"message": "m1", "priority": "urgent", "action_required": false}]}
            """
        let predictions = try PredictionsFile.parse(text, file: "run.jsonl", fixtureIDs: ids)
        #expect(predictions["class-picnic"]?.deadlines.first?.deadline == Make.date("2026-03-06"))
        #expect(predictions["class-picnic"]?.calendarEvents.first?.time == Make.time("11:00"))
        #expect(predictions["class-picnic"]?.decisions.isEmpty == true)  // no line: nothing predicted
        #expect(predictions["snow-day"]?.priorityMessages.first?.actionRequired == false)
    }

    @Test func serializeRoundTrips() throws {
        let original = ["class-picnic": Make.standardExpected, "snow-day": ExtractionSet([Make.decision(["m2"])])]
        let text = PredictionsFile.serialize(original)
        #expect(text.split(separator: "\n").count == 6)
        #expect(try PredictionsFile.parse(text, file: "run.jsonl", fixtureIDs: ids) == original)
    }

    @Test func malformedLineNamesItsNumber() {
        let text = """
            {"fixture": "class-picnic", "feature": "deadlines", "items": []}
            {"fixture": "class-picnic", "feature": "rsvps", "items": [}
            """
        let found = problems(text)
        #expect(found.count == 1)
        #expect(found.first?.hasPrefix("run.jsonl:2: invalid JSON") == true)
    }

    @Test func unknownFixtureFeatureAndRepeatsAreReportedByLine() {
        let text = """
            {"fixture": "nope", "feature": "deadlines", "items": []}
            {"fixture": "snow-day", "feature": "reminders", "items": []}
            {"fixture": "snow-day", "feature": "decisions", "items": []}
            {"fixture": "snow-day", "feature": "decisions", "items": []}
            [1, 2]
            {"fixture": "snow-day", "feature": "rsvps"}
            """
        let found = problems(text)
        #expect(found.count == 5)
        #expect(found[0] == "run.jsonl:1: unknown fixture 'nope'")
        #expect(found[1].hasPrefix("run.jsonl:2: unknown feature 'reminders'"))
        #expect(found[2] == "run.jsonl:4: second line for fixture 'snow-day', feature 'decisions' (first on line 3)")
        #expect(found[3] == "run.jsonl:5: expected a JSON object, got array")
        #expect(found[4] == "run.jsonl:6: missing array field 'items'")
    }

    @Test func badItemNamesLineAndField() {
        let text = """
            {"fixture": "class-picnic", "feature": "deadlines", "items": [{"task": "a", "deadline": "2026-03-06", "category": "school", "source": ["m2"]}, {"task": "b", "deadline": "2026-02-30", "category": "school", "source": ["m2"]}]}
            {"fixture": "class-picnic", "feature": "rsvps", "items": [{"event": "x", "event_date": "2026-03-07", "requested_by": "dan", "source": ["m1"]}]}
            """
        let found = problems(text)
        #expect(found.count == 2)
        #expect(found[0].hasPrefix("run.jsonl:1: items[1].deadline: '2026-02-30' is not a YYYY-MM-DD date"))
        #expect(found[1] == "run.jsonl:2: items[0]: missing required field 'status'")
    }
}
