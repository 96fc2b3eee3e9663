import Core

/// Builders for strict-compatible parameter schemas: every property required, no extra properties, and
/// "optional" written as a nullable type, so the model always sends every key and `null` means "not given".
enum ToolSchema {
    static func object(_ properties: [(String, JSONValue)]) -> JSONValue {
        .object([
            "type": "object",
            "properties": .object(JSONObject(properties)),
            "required": .array(properties.map { .string($0.0) }),
            "additionalProperties": false,
        ])
    }

    static func string(_ description: String, nullable: Bool = false, oneOf values: [String]? = nil) -> JSONValue {
        var schema: JSONObject = ["type": nullable ? ["string", "null"] : "string", "description": .string(description)]
        if let values {
            schema["enum"] = .array(values.map { .string($0) } + (nullable ? [.null] : []))
        }
        return .object(schema)
    }

    static func integer(_ description: String) -> JSONValue {
        ["type": "integer", "description": .string(description)]
    }

    static func boolean(_ description: String) -> JSONValue {
        ["type": "boolean", "description": .string(description)]
    }
}

/// Arguments of a tool that takes none.
package struct NoArguments: Decodable, Sendable {}
