import Crypto
package import Foundation
package import Core

/// All prompt versions of a directory, keyed by (id, version).
package struct PromptLibrary: Sendable {
    /// The variables extractors and the assistant know how to fill.
    package static let standardVariables: Set<String> = [
        "messages", "today", "now", "timezone", "user_name", "conversation_name", "weekday", "participants", "user_id",
        // The proactive assistant: the findings code computed for the user, as JSON.
        "findings",
        // The combined prompt's list of features, filled from the extractors' registry when it is loaded.
        "feature_count", "feature_rules",
        // A night's open items from earlier nights (docs/over-nights.md), in the `{{#open_items}}` section.
        "open_items",
    ]

    package struct Key: Sendable, Hashable {
        package let id: String
        package let version: Int
    }

    private let prompts: [Key: Prompt]
    /// SHA-256 (hex) of the files the set was loaded from: each prompt file, the schema files it names and the pins
    /// file, in load order with their names. The same files give the same hash whether embedded or in a directory;
    /// nil for a library built in memory. Pins moved for one run (`pinning`) are recorded per prompt instead.
    package let fingerprint: String?
    /// The version each id runs with (`active.yaml` and any overrides); ids with a single version need none.
    package private(set) var pins: PromptPins

    /// - Parameter pins: must name existing versions, and pin every id that has more than one.
    package init(prompts: [Prompt], pins: PromptPins = PromptPins(), pinsFile: String = PromptPins.fileName,
                fingerprint: String? = nil) throws(PromptLoadError) {
        try self.init(prompts: prompts, pins: pins, pinsFile: pinsFile, checkPins: true, fingerprint: fingerprint)
    }

    init(prompts: [Prompt], pins: PromptPins, pinsFile: String, checkPins: Bool, fingerprint: String?) throws(PromptLoadError) {
        var byKey: [Key: Prompt] = [:]
        var problems: [FileProblem] = []
        for prompt in prompts {
            let key = Key(id: prompt.id, version: prompt.version)
            if let existing = byKey[key] {
                problems.append(FileProblem(
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
        self.pins = pins
        let pinProblems = checkPins ? Self.check(pins, prompts: byKey, file: pinsFile) : []
        guard pinProblems.isEmpty else { throw PromptLoadError(problems: pinProblems) }
    }

    /// Pins that name no prompt file, and ids with several versions but no pin: either would leave the choice of
    /// a production prompt to the order files happen to land in.
    private static func check(_ pins: PromptPins, prompts: [Key: Prompt], file: String) -> [FileProblem] {
        var versions: [String: [Int]] = [:]
        for key in prompts.keys { versions[key.id, default: []].append(key.version) }
        var problems: [FileProblem] = []
        for (id, version) in pins.versions.sorted(by: { $0.key < $1.key }) where prompts[Key(id: id, version: version)] == nil {
            let known = versions[id]?.sorted().map(String.init).joined(separator: ", ")
            problems.append(FileProblem(file: file, line: pins.lines[id] ?? 0,
                                          message: "\(id): no prompt version \(version) (known: \(known ?? "none, no prompt has this id"))"))
        }
        for (id, known) in versions.sorted(by: { $0.key < $1.key }) where known.count > 1 && pins.versions[id] == nil {
            problems.append(FileProblem(
                file: file, line: 0,
                message: "\(id) has versions \(known.sorted().map(String.init).joined(separator: ", ")): pin the one production uses (`\(id): \(known.min() ?? 1)`)"))
        }
        return problems
    }

    /// This library with some pins moved for one run (`--prompt-version`, `MESSAGEAI_PROMPT_VERSIONS`); each must
    /// name an existing version.
    package func pinning(_ overrides: PromptPins, source: String = "--prompt-version") throws(PromptLoadError) -> PromptLibrary {
        guard !overrides.versions.isEmpty else { return self }
        var merged = pins
        merged.versions.merge(overrides.versions) { _, override in override }
        for id in overrides.versions.keys { merged.lines[id] = nil }
        return try PromptLibrary(prompts: Array(prompts.values), pins: merged, pinsFile: source, fingerprint: fingerprint)
    }

    /// Checks a few-shot output against the prompt's output schema; returns the violations.
    package typealias ExampleValidator = @Sendable (_ schema: JSONValue, _ instance: JSONValue) -> [JSONValidationError]

    /// Full JSON Schema validation (JSONKit); a schema that does not compile is itself reported.
    package static let jsonSchemaValidator: ExampleValidator = { schema, instance in
        do {
            return try JSONSchema(schema).validate(instance)
        } catch {
            return [JSONValidationError(path: "$", keyword: "schema", message: "the output schema does not compile: \(error)")]
        }
    }

    /// Loads every `*.yaml`/`*.yml` file of `directory` (not recursive), in name order, and the pins of its
    /// `active.yaml`.
    ///
    /// - Parameter validateExample: checks few-shot outputs against the output schema, so an
    ///   example never teaches the model an answer the schema rejects; with nil only the
    ///   top-level keys are checked.
    package static func load(
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
            throw PromptLoadError(problems: [FileProblem(file: display, line: 0, message: "cannot read prompt directory: \(error.localizedDescription)")])
        }
        var problems: [FileProblem] = []
        var prompts: [Prompt] = []
        var lines: [String: Int] = [:]  // file → line of `version`, for duplicate reports
        var digest = SHA256()
        func hash(_ name: String, _ data: Data) {
            digest.update(data: Data(name.utf8) + [0])
            withUnsafeBytes(of: UInt64(data.count).bigEndian) { digest.update(bufferPointer: $0) }
            digest.update(data: data)
        }
        var pins = PromptPins()
        for name in names {
            let url = directory.appendingPathComponent(name)
            let file = display + "/" + name
            guard let data = PromptFiles.data(at: url), let text = String(data: data, encoding: .utf8) else {
                problems.append(FileProblem(file: file, line: 0, message: "cannot read file as UTF-8"))
                continue
            }
            if name == PromptPins.fileName {
                hash(name, data)
                let parsed = PromptPins.parse(text, file: file)
                pins = parsed.pins
                problems += parsed.problems
                continue
            }
            let document: YAMLDocument
            do {
                document = try YAMLJSON.parse(text, file: file)
            } catch {
                problems.append(FileProblem(file: file, line: error.line, message: error.message))
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
            // Pins are checked only when every file loaded: a version whose file is broken is reported once, there.
            library = try PromptLibrary(prompts: prompts, pins: pins, pinsFile: display + "/" + PromptPins.fileName, checkPins: problems.isEmpty,
                                        fingerprint: digest.finalize().map { String(format: "%02x", $0) }.joined())
        } catch {
            // Duplicates point at the `version` line of the later file.
            let located = error.problems.map { FileProblem(file: $0.file, line: lines[$0.file] ?? $0.line, message: $0.message) }
            throw PromptLoadError(problems: problems + located)
        }
        guard problems.isEmpty else { throw PromptLoadError(problems: problems) }
        return library
    }

    package func prompt(id: String, version: Int) -> Prompt? { prompts[Key(id: id, version: version)] }

    /// The highest version of `id`, pinned or not (for listings; runs use `active(id:)`).
    package func latest(id: String) -> Prompt? {
        prompts.values.filter { $0.id == id }.max { $0.version < $1.version }
    }

    /// The version runs use: the pinned one, or the only one. A new version changes nothing until its pin moves.
    package func active(id: String) -> Prompt? {
        if let version = pins.versions[id] { return prompt(id: id, version: version) }
        let versions = prompts.values.filter { $0.id == id }
        return versions.count == 1 ? versions.first : nil
    }

    /// Every prompt, sorted by id then version.
    package var all: [Prompt] {
        prompts.values.sorted { ($0.id, $0.version) < ($1.id, $1.version) }
    }
}
