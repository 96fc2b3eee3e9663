package import Foundation
package import Core

/// Lints the output-schema files of a directory with `StrictSchemaLint`, reporting `file:line`.
///
/// Lines come from re-reading the JSON as YAML (JSON is YAML 1.2), best effort: a problem whose
/// line cannot be found is reported against the file.
package enum SchemaFileLint {
    /// `*.json` files in name order, minus `skipping` (e.g. schemas that are not LLM outputs).
    package static func lintDirectory(_ directory: URL, skipping: Set<String> = []) -> (files: Int, problems: [FileProblem]) {
        let display = directory.relativePath.hasSuffix("/") ? String(directory.relativePath.dropLast()) : directory.relativePath
        let names: [String]
        do {
            names = try PromptFiles.names(in: directory)
                .filter { $0.hasSuffix(".json") && !skipping.contains($0) }
                .sorted()
        } catch {
            return (0, [FileProblem(file: display, line: 0, message: "cannot read schema directory: \(error.localizedDescription)")])
        }
        var problems: [FileProblem] = []
        for name in names {
            problems += lintFile(directory.appendingPathComponent(name), displayName: display + "/" + name)
        }
        return (names.count, problems)
    }

    /// Problems of one schema file: unreadable, not JSON, not a compilable JSON Schema, or not strict-compatible.
    static func lintFile(_ url: URL, displayName: String) -> [FileProblem] {
        guard let data = PromptFiles.data(at: url), let text = String(data: data, encoding: .utf8) else {
            return [FileProblem(file: displayName, line: 0, message: "cannot read file as UTF-8")]
        }
        let schema: JSONValue
        do {
            schema = try JSONValue.parse(data)
        } catch {
            let line = text.utf8.prefix(error.offset).filter { $0 == UInt8(ascii: "\n") }.count + 1
            return [FileProblem(file: displayName, line: line, message: "not valid JSON: \(error.message)")]
        }
        var problems: [FileProblem] = []
        do {
            _ = try JSONSchema(schema)
        } catch {
            problems.append(FileProblem(file: displayName, line: 0, message: "not a usable JSON Schema: \(error)"))
        }
        let document = try? YAMLJSON.parse(text, file: displayName)
        for finding in StrictSchemaLint.findings(in: schema) {
            let line = document?.line(at: finding.path) ?? 0
            problems.append(FileProblem(file: displayName, line: line, message: finding.description))
        }
        return problems
    }
}
