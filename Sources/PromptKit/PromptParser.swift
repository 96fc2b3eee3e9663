import Foundation
import Core

/// Checks one parsed YAML prompt file and builds a `Prompt`, collecting every problem on the way.
struct PromptParser {
    typealias OutputValidator = PromptLibrary.ExampleValidator

    static let topLevelKeys = ["id", "version", "description", "model", "parameters", "output", "variables", "system", "user", "examples", "combined_rule"]
    static let parameterKeys = ["temperature", "seed", "max_tokens"]

    let document: YAMLDocument
    let fileURL: URL
    let allowedVariables: Set<String>
    let validateOutput: OutputValidator?
    private(set) var problems: [FileProblem] = []
    /// The schema files read, as named in the YAML, with their bytes (for the library's fingerprint).
    private(set) var schemaFiles: [(path: String, data: Data)] = []

    init(document: YAMLDocument, fileURL: URL, allowedVariables: Set<String>, validateOutput: OutputValidator?) {
        self.document = document
        self.fileURL = fileURL
        self.allowedVariables = allowedVariables
        self.validateOutput = validateOutput
    }

    private mutating func problem(_ path: [JSONPathComponent], _ message: String, keyLine: Bool = false) {
        let line = (keyLine ? document.keyLine(at: path) : document.line(at: path)) ?? 0
        problems.append(FileProblem(file: document.file, line: line, message: message))
    }

    private mutating func problem(line: Int, _ message: String) {
        problems.append(FileProblem(file: document.file, line: line, message: message))
    }

    /// The prompt, or nil when anything was wrong (see `problems`).
    mutating func parse() -> Prompt? {
        guard let root = document.root.objectValue else {
            problem([], "a prompt file must be a mapping of keys (id, version, ...), found \(document.root.typeName)")
            return nil
        }
        for key in root.keys where !Self.topLevelKeys.contains(key) {
            problem([.key(key)], "unknown key '\(key)' (allowed: \(Self.topLevelKeys.joined(separator: ", ")))", keyLine: true)
        }

        let id = string("id", in: root, required: true)
        if let id, id.range(of: "^[a-z][a-z0-9_]*$", options: .regularExpression) == nil {
            problem([.key("id")], "id '\(id)' must be lower_snake_case ([a-z][a-z0-9_]*)")
        }
        let version = positiveInteger(root["version"], at: [.key("version")], required: true)
        let description = string("description", in: root, required: true)
        let model = string("model", in: root, required: true)
        if model?.isEmpty == true { problem([.key("model")], "model must not be empty") }
        let parameters = parseParameters(root["parameters"])
        let output = parseOutput(root["output"])
        let variables = parseVariables(root["variables"])
        let system = string("system", in: root, required: true)
        let user = string("user", in: root, required: true)
        var templates: [(key: String, template: Template)] = []
        if let system { templates.append(("system", Template(system))) }
        if let user { templates.append(("user", Template(user))) }
        if let variables { checkTemplates(templates, declared: variables) }
        let examples = parseExamples(root["examples"], schema: output?.schema)
        let combinedRule = parseCombinedRule(root)

        guard problems.isEmpty, let id, let version, let description, let model, let variables, let system, let user,
              let examples
        else { return nil }
        return Prompt(
            id: id, version: version, description: description, model: model, parameters: parameters ?? PromptParameters(),
            outputName: output?.name, outputSchema: output?.schema, schemaPath: output?.path, variables: variables,
            system: system, user: user, examples: examples, combinedRule: combinedRule, sourceFile: document.file
        )
    }

    // MARK: - Fields

    /// `combined_rule`: this feature's line in the combined request, so that one edit of a feature's prompt file reaches
    /// both request modes. Optional; one paragraph of text with no placeholders (it is inserted as written).
    private mutating func parseCombinedRule(_ root: JSONObject) -> String? {
        guard let rule = string("combined_rule", in: root, required: false) else { return nil }
        let trimmed = rule.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty {
            problem([.key("combined_rule")], "combined_rule must not be empty (leave the key out to use the feature's built-in rule)")
            return nil
        }
        if trimmed.contains("\n") {
            problem([.key("combined_rule")], "combined_rule must be one paragraph: it is one `- <id>: <rule>` line of the combined prompt")
            return nil
        }
        if trimmed.contains("{{") {
            problem([.key("combined_rule")], "combined_rule is inserted as written: it may not hold a placeholder ('{{')")
            return nil
        }
        return trimmed
    }

    private mutating func string(_ key: String, in object: JSONObject, required: Bool, path: [JSONPathComponent] = []) -> String? {
        let at = path + [.key(key)]
        guard let value = object[key] else {
            if required { problem(path, "missing required key '\(JSONPath.display(at))'") }
            return nil
        }
        guard let string = value.stringValue else {
            problem(at, "'\(JSONPath.display(at))' must be a string, found \(value.typeName)")
            return nil
        }
        return string
    }

    private mutating func positiveInteger(_ value: JSONValue?, at path: [JSONPathComponent], required: Bool) -> Int? {
        guard let value else {
            if required { problem(Array(path.dropLast()), "missing required key '\(JSONPath.display(path))'") }
            return nil
        }
        guard case .integer(let integer) = value, integer > 0, integer <= Int32.max else {
            problem(path, "'\(JSONPath.display(path))' must be a positive integer, found \(value)")
            return nil
        }
        return Int(integer)
    }

    private mutating func parseParameters(_ value: JSONValue?) -> PromptParameters? {
        guard let value else { return nil }
        let base: [JSONPathComponent] = [.key("parameters")]
        guard let object = value.objectValue else {
            problem(base, "'parameters' must be a mapping (temperature, seed, max_tokens), found \(value.typeName)")
            return nil
        }
        for key in object.keys where !Self.parameterKeys.contains(key) {
            problem(base + [.key(key)], "unknown key 'parameters.\(key)' (allowed: \(Self.parameterKeys.joined(separator: ", ")))", keyLine: true)
        }
        var parameters = PromptParameters()
        if let temperature = object["temperature"] {
            if let number = temperature.doubleValue, (0...2).contains(number) {
                parameters.temperature = number
            } else {
                problem(base + [.key("temperature")], "'parameters.temperature' must be a number in 0...2, found \(temperature)")
            }
        }
        if let seed = object["seed"] {
            if case .integer(let integer) = seed { parameters.seed = Int(integer) } else {
                problem(base + [.key("seed")], "'parameters.seed' must be an integer, found \(seed)")
            }
        }
        if object["max_tokens"] != nil {
            parameters.maxTokens = positiveInteger(object["max_tokens"], at: base + [.key("max_tokens")], required: false)
        }
        return parameters
    }

    private mutating func parseOutput(_ value: JSONValue?) -> (name: String, path: String, schema: JSONValue)? {
        guard let value else { return nil }
        let base: [JSONPathComponent] = [.key("output")]
        guard let object = value.objectValue else {
            problem(base, "'output' must be a mapping {name, schema}, found \(value.typeName)")
            return nil
        }
        for key in object.keys where key != "name" && key != "schema" {
            problem(base + [.key(key)], "unknown key 'output.\(key)' (allowed: name, schema)", keyLine: true)
        }
        let name = string("name", in: object, required: true, path: base)
        if let name, name.range(of: "^[A-Za-z0-9_-]{1,64}$", options: .regularExpression) == nil {
            problem(base + [.key("name")], "'output.name' must be 1-64 of [A-Za-z0-9_-] (OpenAI's rule), found '\(name)'")
        }
        guard let path = string("schema", in: object, required: true, path: base), let name else { return nil }
        let schemaPath = base + [.key("schema")]
        let url = URL(fileURLWithPath: path, relativeTo: fileURL.deletingLastPathComponent()).standardizedFileURL
        guard let data = PromptFiles.data(at: url) else {
            problem(schemaPath, "schema file '\(path)' not found (looked at \(url.path))")
            return nil
        }
        schemaFiles.append((path, data))
        let schema: JSONValue
        do {
            schema = try JSONValue.parse(data)
        } catch {
            problem(schemaPath, "schema file '\(path)' is not valid JSON: \(error)")
            return nil
        }
        guard schema.objectValue != nil else {
            problem(schemaPath, "schema file '\(path)' must hold a JSON object, found \(schema.typeName)")
            return nil
        }
        return (name, path, schema)
    }

    private mutating func parseVariables(_ value: JSONValue?) -> [String]? {
        let path: [JSONPathComponent] = [.key("variables")]
        guard let value else {
            problem([], "missing required key 'variables' (list the template variables, may be [])")
            return nil
        }
        guard let items = value.arrayValue else {
            problem(path, "'variables' must be a list of names, found \(value.typeName)")
            return nil
        }
        var names: [String] = []
        let allowed = allowedVariables.sorted().joined(separator: ", ")
        for (index, item) in items.enumerated() {
            let itemPath = path + [.index(index)]
            guard let name = item.stringValue else {
                problem(itemPath, "variables[\(index)] must be a string, found \(item.typeName)")
                continue
            }
            if names.contains(name) { problem(itemPath, "variable '\(name)' is declared twice") }
            if !allowedVariables.contains(name) { problem(itemPath, "variable '\(name)' is not one callers provide (allowed: \(allowed))") }
            names.append(name)
        }
        return names
    }

    private mutating func checkTemplates(_ templates: [(key: String, template: Template)], declared: [String]) {
        let declaredList = declared.joined(separator: ", ")
        for (key, template) in templates {
            for malformed in template.malformed {
                let line = document.line(at: [.key(key)], textLine: malformed.line) ?? 0
                problem(line: line, "\(key): malformed placeholder '\(malformed.snippet)' (write {{name}})")
            }
            var reported = Set<String>()
            for segment in template.segments {
                guard case .variable(let name, let textLine) = segment, !declared.contains(name) else {
                    guard case .sectionStart(let name, let textLine) = segment, !declared.contains(name) else { continue }
                    guard reported.insert(name).inserted else { continue }
                    let line = document.line(at: [.key(key)], textLine: textLine) ?? 0
                    problem(line: line, "unknown variable '{{#\(name)}}' in \(key) (declared: \(declaredList))")
                    continue
                }
                guard reported.insert(name).inserted else { continue }
                let line = document.line(at: [.key(key)], textLine: textLine) ?? 0
                problem(line: line, "unknown variable '{{\(name)}}' in \(key) (declared: \(declaredList))")
            }
        }
    }

    private mutating func parseExamples(_ value: JSONValue?, schema: JSONValue?) -> [PromptExample]? {
        guard let value else { return [] }
        let base: [JSONPathComponent] = [.key("examples")]
        guard let items = value.arrayValue else {
            problem(base, "'examples' must be a list of {input, output}, found \(value.typeName)")
            return nil
        }
        var examples: [PromptExample] = []
        for (index, item) in items.enumerated() {
            let itemPath = base + [.index(index)]
            guard let object = item.objectValue else {
                problem(itemPath, "examples[\(index)] must be a mapping {input, output}, found \(item.typeName)")
                continue
            }
            for key in object.keys where key != "input" && key != "output" {
                problem(itemPath + [.key(key)], "unknown key 'examples[\(index)].\(key)' (allowed: input, output)", keyLine: true)
            }
            let input = string("input", in: object, required: true, path: itemPath)
            guard let output = object["output"] else {
                problem(itemPath, "missing required key 'examples[\(index)].output'")
                continue
            }
            let outputPath = itemPath + [.key("output")]
            guard output.objectValue != nil else {
                problem(outputPath, "examples[\(index)].output must be a mapping (a JSON object), found \(output.typeName)")
                continue
            }
            if let schema { checkExample(output, against: schema, at: outputPath) }
            if let input { examples.append(PromptExample(input: input, output: output)) }
        }
        return examples
    }

    /// Full validation when a validator was supplied; otherwise the top-level shape only.
    private mutating func checkExample(_ output: JSONValue, against schema: JSONValue, at path: [JSONPathComponent]) {
        let label = JSONPath.display(path)
        if let validateOutput {
            for violation in validateOutput(schema, output) {
                let inner = JSONPath.parse(violation.path) ?? []
                let line = document.line(at: path + inner) ?? 0
                let at = inner.isEmpty ? label : label + "." + JSONPath.display(inner)
                problem(line: line, "\(at): \(violation.message) (does not match the output schema)")
            }
            return
        }
        guard let object = output.objectValue, let properties = schema["properties"]?.objectValue else { return }
        for key in object.keys where properties[key] == nil {
            problem(path + [.key(key)], "\(label).\(key) is not a property of the output schema", keyLine: true)
        }
        for case .string(let key) in schema["required"]?.arrayValue ?? [] where object[key] == nil {
            problem(path, "\(label) lacks required property '\(key)' of the output schema")
        }
    }
}
