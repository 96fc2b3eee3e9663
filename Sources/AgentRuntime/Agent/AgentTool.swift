import Foundation
package import Core

/// A function the agent may call. Arguments arrive already validated against `parametersSchema` and decoded;
/// anything the tool needs beyond them (which user it serves, a database) is fixed when the tool is built.
package protocol AgentTool: Sendable {
    associatedtype Arguments: Decodable & Sendable
    var name: String { get }
    var description: String { get }
    /// A JSON Schema for the arguments object, written to be Structured Outputs strict-compatible
    /// (every property required, `additionalProperties: false`).
    var parametersSchema: JSONValue { get }
    /// Sent as the tool's `strict` flag; true unless the schema cannot meet strict-mode rules.
    var strict: Bool { get }
    func run(_ arguments: Arguments) async throws -> JSONValue
}

extension AgentTool {
    package var strict: Bool { true }
}

/// A tool with its argument type erased and its schema compiled once, so the loop can hold tools of any kind.
package struct AnyAgentTool: Sendable {
    package let name: String
    package let description: String
    package let parametersSchema: JSONValue
    package let strict: Bool
    let validator: JSONSchema
    private let invoke: @Sendable (JSONValue) async throws -> JSONValue

    /// Throws when the tool's schema does not compile, so a broken tool fails at start-up, not mid-run.
    package init<Tool: AgentTool>(_ tool: Tool) throws(JSONSchemaError) {
        name = tool.name
        description = tool.description
        parametersSchema = tool.parametersSchema
        strict = tool.strict
        validator = try JSONSchema(tool.parametersSchema)
        invoke = { arguments in
            let decoded: Tool.Arguments
            do {
                decoded = try arguments.decode(Tool.Arguments.self)
            } catch {
                throw ToolArgumentDecodingError(description: "arguments could not be decoded: \(error)")
            }
            return try await tool.run(decoded)
        }
    }

    /// What the model is told about this tool.
    package var definition: ToolDefinition {
        ToolDefinition(name: name, description: description, parameters: parametersSchema, strict: strict)
    }

    /// Runs the tool on arguments that already passed `validator`.
    func run(_ arguments: JSONValue) async throws -> JSONValue { try await invoke(arguments) }
}

/// Schema-valid arguments that still did not decode into the tool's `Arguments` type (a schema/type mismatch).
struct ToolArgumentDecodingError: Error, CustomStringConvertible {
    let description: String
}
