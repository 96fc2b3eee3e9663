import Core
import Testing

/// Our Chat Completions request bodies checked against OpenAI's own OpenAPI description (shared/openai-openapi).
@Suite struct OpenAPIRequestValidationTests {
    static let requestRef: JSONValue = ["$ref": "#/components/schemas/CreateChatCompletionRequest"]

    func requestSchema() throws -> JSONSchema {
        try JSONSchema(Self.requestRef, root: try SharedFixtures.openAPI.get())
    }

    /// A minimal request of the kind the extractors send: system + user messages, a strict JSON schema answer
    /// format and one function tool.
    static let minimalRequest: JSONValue = [
        "model": "gpt-4o-mini",
        "messages": [
            ["role": "system", "content": "Extract calendar events from the conversation."],
            ["role": "user", "content": "Swim meet Friday at 5pm at the rec center."],
        ],
        "response_format": [
            "type": "json_schema",
            "json_schema": [
                "name": "calendar_events",
                "strict": true,
                "schema": [
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["events"],
                    "properties": [
                        "events": [
                            "type": "array",
                            "items": [
                                "type": "object",
                                "additionalProperties": false,
                                "required": ["title", "date"],
                                "properties": ["title": ["type": "string"], "date": ["type": "string"]],
                            ],
                        ],
                    ],
                ],
            ],
        ],
        "tools": [
            [
                "type": "function",
                "function": [
                    "name": "get_calendar",
                    "description": "Lists the family's events on a day.",
                    "strict": true,
                    "parameters": [
                        "type": "object",
                        "additionalProperties": false,
                        "required": ["date"],
                        "properties": ["date": ["type": "string", "description": "YYYY-MM-DD"]],
                    ],
                ],
            ],
        ],
        "temperature": 0,
        "max_completion_tokens": .null,
    ]

    func changing(_ key: String, to value: JSONValue?) -> JSONValue {
        guard case .object(var object) = Self.minimalRequest else { return .null }
        object[key] = value
        return .object(object)
    }

    @Test func minimalChatCompletionsRequestIsValid() throws {
        let errors = try requestSchema().validate(Self.minimalRequest)
        #expect(errors.isEmpty, "unexpected errors: \(errors)")
    }

    @Test func requestWithoutMessagesIsInvalid() throws {
        let errors = try requestSchema().validate(changing("messages", to: nil))
        #expect(errors.contains { $0.keyword == "required" && $0.message == "missing required property 'messages'" }, "\(errors)")
    }

    @Test func messageWithUnknownRoleIsInvalid() throws {
        let body = changing("messages", to: [["role": "bogus", "content": "hi"]])
        let schema = try requestSchema()
        #expect(schema.isValid(body) == false)
        let errors = schema.validate(body)
        // The message alternatives are told apart by `role`: the error names it and every allowed value.
        #expect(errors.count == 1, "\(errors)")
        #expect(errors.first?.path == "$.messages[0].role")
        #expect(errors.first?.message.hasPrefix(#"expected one of "developer", "system", "user", "assistant""#) == true, "\(errors)")
        #expect(errors.first?.message.hasSuffix(#"got "bogus""#) == true, "\(errors)")
    }

    @Test func toolWithoutNameNamesTheMissingField() throws {
        let body = changing("tools", to: [["type": "function", "function": ["description": "Lists events."]]])
        let errors = try requestSchema().validate(body)
        #expect(errors.map(\.description) == ["$.tools[0].function: missing required property 'name'"])
    }

    @Test func wrongFieldTypesAreInvalid() throws {
        let schema = try requestSchema()
        #expect(schema.validate(changing("temperature", to: "warm")).contains { $0.path == "$.temperature" })
        #expect(schema.validate(changing("messages", to: [])).contains { $0.keyword == "minItems" && $0.path == "$.messages" })
    }

    /// Every schema in components/schemas compiles: no keyword our compiler rejects, no dangling `$ref`.
    @Test func everyComponentSchemaCompiles() throws {
        let document = try SharedFixtures.openAPI.get()
        let names = try #require(document["components"]?["schemas"]?.objectValue?.keys)
        #expect(names.count > 500)
        let all = JSONValue.array(names.map { ["$ref": .string("#/components/schemas/" + $0.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1"))] })
        _ = try JSONSchema(["allOf": all], root: document)
    }
}
