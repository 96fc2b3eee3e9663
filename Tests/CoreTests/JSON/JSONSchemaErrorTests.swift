import Core
import Testing

/// Error paths and messages: what a model (or a developer) reads when an answer is rejected.
@Suite struct JSONSchemaErrorTests {
    static let eventsSchema: JSONValue = [
        "type": "object",
        "additionalProperties": false,
        "required": ["events"],
        "properties": [
            "events": [
                "type": "array",
                "items": [
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["title", "date", "time"],
                    "properties": [
                        "title": ["type": "string", "minLength": 1],
                        "date": ["type": "string", "format": "date"],
                        "time": ["anyOf": [["type": "string", "pattern": "^[0-9]{2}:[0-9]{2}$"], ["type": "null"]]],
                        "kind": ["enum": ["school", "sports"]],
                    ],
                ],
            ],
        ],
    ]

    static let goodEvent: JSONValue = ["title": "Swim meet", "date": "2026-04-17", "time": "17:30", "kind": "sports"]

    func errors(_ instance: JSONValue, schema: JSONValue = eventsSchema) throws -> [JSONValidationError] {
        let compiled = try JSONSchema(schema)
        let errors = compiled.validate(instance)
        #expect(compiled.isValid(instance) == errors.isEmpty, "isValid and validate disagree")
        return errors
    }

    func event(_ changes: [String: JSONValue?]) -> JSONValue {
        guard case .object(var object) = Self.goodEvent else { return .null }
        for (key, value) in changes { object[key] = value }
        return .object(object)
    }

    @Test func validAnswerHasNoErrors() throws {
        #expect(try errors(["events": [Self.goodEvent, event(["time": .null])]]).isEmpty)
    }

    @Test func formatErrorIsLocatedInsideTheArray() throws {
        let found = try errors(["events": [Self.goodEvent, event(["date": "2026-02-30"])]])
        let error = try #require(found.first)
        #expect(found.count == 1)
        #expect(error.path == "$.events[1].date")
        #expect(error.keyword == "format")
        #expect(error.message.contains("\"2026-02-30\" is not a valid RFC 3339 date"))
        #expect(error.description.hasPrefix("$.events[1].date: "))
    }

    @Test func missingRequiredPropertyIsNamed() throws {
        let found = try errors(["events": [event(["date": nil])]])
        #expect(found == [JSONValidationError(path: "$.events[0]", keyword: "required", message: "missing required property 'date'")])
    }

    @Test func missingRootPropertyIsReportedAtRoot() throws {
        let found = try errors([:])
        #expect(found.map(\.description) == ["$: missing required property 'events'"])
    }

    @Test func additionalPropertyNamesTheKeyAndTheAllowedOnes() throws {
        let found = try errors(["events": [event(["location": "pool"])]])
        #expect(found.count == 1)
        #expect(found.first?.keyword == "additionalProperties")
        #expect(found.first?.path == "$.events[0]")
        #expect(found.first?.message == "unexpected property 'location' (allowed: date, kind, time, title)")
    }

    @Test func wrongTypeSaysExpectedAndGot() throws {
        let found = try errors(["events": [event(["date": .null])]])
        #expect(found.map(\.description) == ["$.events[0].date: expected string, got null"])
        let rootFound = try errors(["events": "none"])
        #expect(rootFound.map(\.description) == ["$.events: expected array, got string"])
    }

    @Test func enumListsTheAllowedValues() throws {
        let found = try errors(["events": [event(["kind": "party"])]])
        #expect(found.map(\.description) == [#"$.events[0].kind: expected one of "school", "sports", got "party""#])
    }

    @Test func anyOfOfTypesReadsAsOneTypeError() throws {
        let found = try errors(["events": [event(["time": 1730])]])
        #expect(found.map(\.description) == ["$.events[0].time: expected string or null, got integer"])
    }

    @Test func anyOfReportsTheAlternativeWhoseTypeFits() throws {
        let found = try errors(["events": [event(["time": "5pm"])]])
        #expect(found.count == 1)
        #expect(found.first?.path == "$.events[0].time")
        #expect(found.first?.keyword == "pattern")
    }

    @Test func everyErrorIsCollected() throws {
        let found = try errors(["events": [event(["title": "", "date": 20260417]), event(["kind": "x", "time": nil])], "extra": true])
        #expect(Set(found.map(\.path)) == ["$", "$.events[0].title", "$.events[0].date", "$.events[1]", "$.events[1].kind"])
        #expect(found.count == 5)
    }

    @Test func oddKeysAreQuotedInPaths() throws {
        let schema: JSONValue = ["properties": ["start time": ["type": "string"], "a.b": ["type": "string"]]]
        let found = try errors(["start time": 1, "a.b": 2], schema: schema)
        #expect(found.map(\.path) == [#"$["start time"]"#, #"$["a.b"]"#])
    }

    @Test func oneOfMatchingTwiceSaysSo() throws {
        let schema: JSONValue = ["oneOf": [["type": "integer"], ["minimum": 0]]]
        let found = try errors(3, schema: schema)
        #expect(found.first?.keyword == "oneOf")
        #expect(found.first?.message.contains("exactly one must match") == true)
    }

    @Test func integralNumbersEqualIntegersInEnumAndConst() throws {
        #expect(try errors(.number(1.0), schema: ["enum": [1, "x"]]).isEmpty)
        #expect(try errors(.integer(1), schema: ["const": 1.0]).isEmpty)
        #expect(try errors(.number(1.5), schema: ["const": 1]).count == 1)
        #expect(try errors(.bool(true), schema: ["enum": [1]]).count == 1)
    }

    @Test func lengthsCountCodePoints() throws {
        #expect(try errors("💩", schema: ["maxLength": 1]).isEmpty)
        #expect(try errors("e\u{301}", schema: ["maxLength": 1]).map(\.message) == ["expected at most 1 character(s), got 2"])
    }

    @Test func nullableFromOpenAPIAcceptsNull() throws {
        #expect(try errors(.null, schema: ["type": "integer", "nullable": true]).isEmpty)
        #expect(try errors(.null, schema: ["type": "integer"]).map(\.message) == ["expected integer, got null"])
    }

    @Test func annotationsAndUnknownKeywordsAreIgnored() throws {
        let schema: JSONValue = [
            "title": "T", "description": "d", "default": 1, "examples": [1], "$comment": "c", "deprecated": true,
            "readOnly": true, "x-oaiMeta": ["a": 1], "discriminator": ["propertyName": "type"], "format": "unixtime",
            "type": "integer",
        ]
        #expect(try errors(5, schema: schema).isEmpty)
        #expect(try errors("5", schema: schema).map(\.keyword) == ["type"])
    }

    @Test func openAPIBooleanExclusiveBoundsAreHonoured() throws {
        let schema: JSONValue = ["type": "number", "minimum": 0, "exclusiveMinimum": true, "maximum": 10, "exclusiveMaximum": false]
        #expect(try errors(0, schema: schema).map(\.message) == ["expected a number > 0, got 0"])
        #expect(try errors(10, schema: schema).isEmpty)
    }

    @Test func oneCompiledSchemaServesManyTasksAtOnce() async throws {
        let schema = try JSONSchema(["type": "array", "items": ["type": "string", "pattern": "^[a-z]+-[0-9]+$"]])
        let verdicts = await withTaskGroup(of: Bool.self) { group in
            for i in 0..<16 {
                group.addTask { schema.isValid([.string("item-\(i)"), i.isMultiple(of: 2) ? "ok-1" : "NOPE"]) }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(verdicts.filter { $0 }.count == 8)
        #expect(verdicts.count == 16)
    }

    @Test func refCycleThatNeverConsumesTheValueFailsInsteadOfLooping() throws {
        let selfRef = try errors(1, schema: ["$ref": "#"])
        #expect(selfRef.first?.keyword == "$ref")
        let mutual: JSONValue = ["$defs": ["a": ["$ref": "#/$defs/b"], "b": ["$ref": "#/$defs/a"]], "$ref": "#/$defs/a"]
        #expect(try JSONSchema(mutual).isValid("x") == false)
    }

    @Test func recursiveSchemaValidatesDeepValues() throws {
        let tree: JSONValue = [
            "type": "object", "required": ["value"],
            "properties": ["value": ["type": "integer"], "child": ["$ref": "#"]],
        ]
        var good: JSONValue = ["value": 0]
        for depth in 1...60 { good = ["value": .integer(Int64(depth)), "child": good] }
        #expect(try errors(good, schema: tree).isEmpty)
        var bad: JSONValue = ["value": "leaf"]
        for depth in 1...3 { bad = ["value": .integer(Int64(depth)), "child": bad] }
        #expect(try errors(bad, schema: tree).map(\.path) == ["$.child.child.child.value"])
    }
}

/// A schema that cannot be used must fail at compile time, saying where.
@Suite struct JSONSchemaCompileErrorTests {
    func compileError(_ schema: JSONValue, root: JSONValue? = nil) -> JSONSchemaError? {
        do {
            _ = try JSONSchema(schema, root: root)
            return nil
        } catch {
            return error
        }
    }

    @Test func invalidRegexIsReportedWithItsSchemaPath() throws {
        let error = try #require(compileError(["properties": ["time": ["pattern": "([0-9"]]]))
        #expect(error.schemaPath == "#/properties/time/pattern")
        #expect(error.description.contains("invalid regular expression"))
    }

    @Test func unresolvableRefIsAnError() throws {
        let local = try #require(compileError(["items": ["$ref": "#/$defs/missing"]]))
        #expect(local.schemaPath == "#/items/$ref")
        #expect(local.message.contains("#/$defs/missing"))
        let remote = try #require(compileError(["$ref": "https://example.com/schema.json"]))
        #expect(remote.message.contains("remote references are not supported"))
    }

    @Test func badKeywordValuesAreErrors() {
        #expect(compileError(["type": "text"])?.schemaPath == "#/type")
        #expect(compileError(["minLength": -1])?.schemaPath == "#/minLength")
        #expect(compileError(["required": "date"])?.schemaPath == "#/required")
        #expect(compileError(["properties": ["a": 3]])?.schemaPath == "#/properties/a")
        #expect(compileError(["items": [["type": "string"]]])?.schemaPath == "#/items")
        #expect(compileError(["multipleOf": 0])?.schemaPath == "#/multipleOf")
    }

    @Test func brokenDefinitionIsFoundEvenWhenUnused() {
        #expect(compileError(["$defs": ["x": ["pattern": "("]]])?.schemaPath == "#/$defs/x/pattern")
    }

    @Test func refsFromADetachedSchemaResolveAgainstTheRoot() throws {
        let root: JSONValue = ["components": ["schemas": ["Day": ["type": "string", "format": "date"]]]]
        let schema = try JSONSchema(["items": ["$ref": "#/components/schemas/Day"]], root: root)
        #expect(schema.isValid(["2026-04-17"]))
        #expect(schema.validate(["2026-04-31"]).map(\.path) == ["$[0]"])
        #expect(compileError(["$ref": "#/components/schemas/Night"], root: root)?.message.contains("nothing at") == true)
    }
}
