import Crypto
import Foundation
import JSONKit

/// All prompt versions of a directory, keyed by (id, version).
public struct PromptLibrary: Sendable {
    /// The variables extractors and the assistant know how to fill.
    public static let standardVariables: Set<String> = [
        "messages", "today", "now", "timezone", "user_name", "conversation_name", "weekday", "participants", "user_id",
        // The proactive assistant: the findings code computed for the user, as JSON.
        "findings",
    ]

    public struct Key: Sendable, Hashable {
        public let id: String
        public let version: Int
    }

    private let prompts: [Key: Prompt]
    /// SHA-256 (hex) of the files the set was loaded from: each prompt file and the schema files it names, in load
    /// order with their names. The same files give the same hash whether embedded or in a directory; nil for a
    /// library built in memory.
    public let fingerprint: String?

    public init(prompts: [Prompt], fingerprint: String? = nil) throws(PromptLoadError) {
        var byKey: [Key: Prompt] = [:]
        var problems: [PromptProblem] = []
        for prompt in prompts {
            let key = Key(id: prompt.id, version: prompt.version)
            if let existing = byKey[key] {
                problems.append(PromptProblem(
                    file: prompt.sourceFile, line: 0,
                    message: "duplicate prompt id '\(prompt.id)' version \(prompt.version) (also in \(existing.sourceFile))"
                ))
            } else {
                byKey[key] = prompt
            }
        }
        guard problems.isEmpty else { throw PromptLoadError(problems: problems) }
        self.prompts = byKey
        self.fingerprint = fingerprint
    }

    /// Checks a few-shot output against the prompt's output schema; returns the violations.
    public typealias ExampleValidator = @Sendable (_ schema: JSONValue, _ instance: JSONValue) -> [JSONValidationError]

    /// Full JSON Schema validation (JSONKit); a schema that does not compile is itself reported.
    public static let jsonSchemaValidator: ExampleValidator = { schema, instance in
        do {
            return try JSONSchema(schema).validate(instance)
        } catch {
            return [JSONValidationError(path: "$", keyword: "schema", message: "the output schema does not compile: \(error)")]
        }
    }

    /// Loads every `*.yaml`/`*.yml` file of `directory` (not recursive), in name order.
    ///
    /// - Parameter validateExample: checks few-shot outputs against the output schema, so an
    ///   example never teaches the model an answer the schema rejects; with nil only the
    ///   top-level keys are checked.
    public static func load(
        directory: URL,
        allowedVariables: Set<String> = standardVariables,
        validateExample: ExampleValidator? = jsonSchemaValidator
    ) throws(PromptLoadError) -> PromptLibrary {
        let display = directory.relativePath.hasSuffix("/") ? String(directory.relativePath.dropLast()) : directory.relativePath
        let names: [String]
        do {
            names = try PromptFiles.names(in: directory)
                .filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }
                .sorted()
        } catch {
            throw PromptLoadError(problems: [PromptProblem(file: display, line: 0, message: "cannot read prompt directory: \(error.localizedDescription)")])
        }
        var problems: [PromptProblem] = []
        var prompts: [Prompt] = []
        var lines: [String: Int] = [:]  // file → line of `version`, for duplicate reports
        var digest = SHA256()
        func hash(_ name: String, _ data: Data) {
            digest.update(data: Data(name.utf8) + [0])
            withUnsafeBytes(of: UInt64(data.count).bigEndian) { digest.update(bufferPointer: $0) }
            digest.update(data: data)
        }
        for name in names {
            let url = directory.appendingPathComponent(name)
            let file = display + "/" + name
            guard let data = PromptFiles.data(at: url), let text = String(data: data, encoding: .utf8) else {
                problems.append(PromptProblem(file: file, line: 0, message: "cannot read file as UTF-8"))
                continue
            }
            let document: YAMLDocument
            do {
                document = try YAMLJSON.parse(text, file: file)
            } catch {
                problems.append(PromptProblem(file: file, line: error.line, message: error.message))
                continue
            }
            hash(name, data)
            var parser = PromptParser(document: document, fileURL: url, allowedVariables: allowedVariables, validateOutput: validateExample)
            let parsed = parser.parse()
            for (path, schema) in parser.schemaFiles { hash(path, schema) }
            if let prompt = parsed {
                prompts.append(prompt)
                lines[file] = document.line(at: [.key("version")])
            }
            problems += parser.problems
        }
        let library: PromptLibrary
        do {
            library = try PromptLibrary(prompts: prompts, fingerprint: digest.finalize().map { String(format: "%02x", $0) }.joined())
        } catch {
            // Duplicates point at the `version` line of the later file.
            let located = error.problems.map { PromptProblem(file: $0.file, line: lines[$0.file] ?? $0.line, message: $0.message) }
            throw PromptLoadError(problems: problems + located)
        }
        guard problems.isEmpty else { throw PromptLoadError(problems: problems) }
        return library
    }

    public func prompt(id: String, version: Int) -> Prompt? { prompts[Key(id: id, version: version)] }

    /// The highest version of `id`: new versions win as soon as their file lands.
    public func latest(id: String) -> Prompt? {
        prompts.values.filter { $0.id == id }.max { $0.version < $1.version }
    }

    /// Every prompt, sorted by id then version.
    public var all: [Prompt] {
        prompts.values.sorted { ($0.id, $0.version) < ($1.id, $1.version) }
    }
}
