import Foundation
import Core

/// Reads fixture YAML into typed `Fixture`s, refusing anything malformed with `file:line: field: message`.
///
/// YAML goes through YAMLKit's `YAMLJSON` (never untyped `Yams.load`, which turns `17:30` into 1050),
/// then the JSON Schema, then typed decoding, then cross-reference checks — each stage only runs on
/// what the previous one accepted, so one mistake yields one clear message.
package enum FixtureLoader {
    /// A single `.yaml` file, or every `.yaml`/`.yml` file of a directory. A fixture may list any feature of `scoring`
    /// (the shipping ones unless another registry is given); a feature it has no list for is `unlabelled`.
    package static func load(path: String, scoring: ScoringRegistry = .shipping) throws(FixtureLoadError) -> [Fixture] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw FixtureLoadError(problems: [FileProblem(file: path, line: 0, field: "", message: "no such file or directory")])
        }
        return isDirectory.boolValue ? try loadDirectory(path, scoring: scoring) : [try loadFile(path, scoring: scoring)]
    }

    /// All fixtures of a directory, sorted by file name; problems of every file are collected before throwing.
    package static func loadDirectory(_ directory: String, scoring: ScoringRegistry = .shipping) throws(FixtureLoadError) -> [Fixture] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
                .filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }
                .sorted()
        } catch {
            throw FixtureLoadError(problems: [FileProblem(file: directory, line: 0, field: "", message: "cannot list directory: \(error.localizedDescription)")])
        }
        guard !names.isEmpty else {
            throw FixtureLoadError(problems: [FileProblem(file: directory, line: 0, field: "", message: "no .yaml fixtures in this directory")])
        }
        let prefix = directory.hasSuffix("/") ? directory : directory + "/"
        var fixtures: [Fixture] = []
        var problems: [FileProblem] = []
        var firstFile: [String: String] = [:]
        for name in names {
            let file = prefix + name
            do throws(FixtureLoadError) {
                let fixture = try loadFile(file, scoring: scoring)
                if let other = firstFile[fixture.id] {
                    problems.append(FileProblem(file: file, line: 0, field: "id", message: "duplicate fixture id '\(fixture.id)' (also in \(other))"))
                } else {
                    firstFile[fixture.id] = file
                    fixtures.append(fixture)
                }
            } catch {
                problems += error.problems
            }
        }
        if !problems.isEmpty { throw FixtureLoadError(problems: problems) }
        return fixtures
    }

    package static func loadFile(_ file: String, scoring: ScoringRegistry = .shipping) throws(FixtureLoadError) -> Fixture {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw FixtureLoadError(problems: [FileProblem(file: file, line: 0, field: "", message: "cannot read file")])
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw FixtureLoadError(problems: [FileProblem(file: file, line: 0, field: "", message: "file is not UTF-8")])
        }
        return try parse(text, file: file, scoring: scoring)
    }

    /// Parses fixture text; `file` names it in errors and its stem must equal the fixture id.
    package static func parse(_ text: String, file: String, scoring: ScoringRegistry = .shipping) throws(FixtureLoadError) -> Fixture {
        let document: YAMLDocument
        do {
            document = try YAMLJSON.parse(text, file: file)
        } catch {
            throw FixtureLoadError(problems: [FileProblem(file: file, line: error.line, field: "", message: error.message)])
        }
        func problem(_ path: [JSONPathComponent], _ message: String) -> FileProblem {
            FileProblem(file: file, line: document.line(at: path) ?? 0, field: JSONPath.display(path), message: message)
        }

        let isNights = document.root["nights"] != nil
        guard let schema = isNights ? scoring.nightsSchema : scoring.fixtureSchema else {
            throw FixtureLoadError(problems: [FileProblem(file: file, line: 0, field: "", message: "internal error: the fixture schema does not compile")])
        }
        let violations = schema.validate(document.root)
        if !violations.isEmpty {
            throw FixtureLoadError(problems: violations.map { violation in
                let path = JSONPath.parse(violation.path) ?? []
                return problem(path, violation.message)
            })
        }

        var fixture: Fixture
        do {
            fixture = try document.root.decode(Fixture.self, decoder: scoring.decoder())
        } catch {
            let failure = DecodingFailure.describe(error)
            throw FixtureLoadError(problems: [problem(failure.path, failure.message)])
        }

        // A nights fixture labels the features its last night lists (`FixtureChecks` wants every night to list the same).
        let expected = isNights ? document.root["nights"]?.arrayValue?.last?["expected"] : document.root["expected"]
        let listed = Set(expected?.objectValue?.keys.map(ExtractionFeature.init(rawValue:)) ?? [])
        fixture.unlabelled = Set(scoring.ids).subtracting(listed)
        if isNights {
            for (index, night) in (document.root["nights"]?.arrayValue ?? []).enumerated() {
                let keys = Set(night["expected"]?.objectValue?.keys.map(ExtractionFeature.init(rawValue:)) ?? [])
                if keys != listed {
                    throw FixtureLoadError(problems: [problem([.key("nights"), .index(index), .key("expected")],
                        "lists \(keys.map(\.rawValue).sorted().joined(separator: ", ")) but the last night lists \(listed.map(\.rawValue).sorted().joined(separator: ", ")): every night labels the same features")])
                }
            }
        }

        let stem = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
        let findings = FixtureChecks.findings(in: fixture, fileStem: stem, scoring: scoring)
        if !findings.isEmpty {
            throw FixtureLoadError(problems: findings.map { problem($0.path, $0.message) })
        }
        return fixture
    }
}
