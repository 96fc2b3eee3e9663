import Foundation
package import Core

/// Every line-numbered problem in a predictions file (`predictions.jsonl:7: items[2].date: ...`), collected before
/// throwing.
package struct PredictionsFileError: Error, Sendable, Hashable, CustomStringConvertible {
    package let problems: [FileProblem]

    package init(problems: [FileProblem]) {
        self.problems = problems
    }

    package var description: String { problems.map(\.description).joined(separator: "\n") }
}

/// Predictions as JSON Lines: one line per fixture and feature,
/// `{"fixture": "class-picnic", "feature": "deadlines", "items": [...]}`, items shaped like the
/// fixture's `expected` entries.
///
/// A missing line means nothing was predicted for that pair; blank lines are skipped; other keys
/// on a line are allowed (run metadata). Malformed lines, unknown fixtures or features and repeated
/// (fixture, feature) pairs are errors naming their line, all collected before throwing.
package enum PredictionsFile {
    /// `scoring` names the features a line may predict (the shipping ones unless another registry is given).
    package static func load(path: String, fixtureIDs: Set<String>,
                            scoring: ScoringRegistry = .shipping) throws(PredictionsFileError) -> [String: PredictedItems] {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw PredictionsFileError(problems: [.init(file: path, line: 0, message: "cannot read file as UTF-8 text")])
        }
        return try parse(text, file: path, fixtureIDs: fixtureIDs, scoring: scoring)
    }

    package static func parse(_ text: String, file: String, fixtureIDs: Set<String>,
                             scoring: ScoringRegistry = .shipping) throws(PredictionsFileError) -> [String: PredictedItems] {
        var result: [String: PredictedItems] = [:]
        var problems: [FileProblem] = []
        var seen: [String: Int] = [:]
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        for (offset, raw) in lines.enumerated() {
            let number = offset + 1
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw
            if line.allSatisfy(\.isWhitespace) { continue }
            func fail(_ message: String) { problems.append(.init(file: file, line: number, message: message)) }

            let value: JSONValue
            do {
                value = try JSONValue.parse(String(line))
            } catch {
                fail(error.description)
                continue
            }
            guard case .object(let object) = value else { fail("expected a JSON object, got \(value.typeName)"); continue }
            guard let fixture = object["fixture"]?.stringValue else { fail("missing string field 'fixture'"); continue }
            guard let featureName = object["feature"]?.stringValue else { fail("missing string field 'feature'"); continue }
            guard let items = object["items"], case .array = items else { fail("missing array field 'items'"); continue }
            guard fixtureIDs.contains(fixture) else { fail("unknown fixture '\(fixture)'"); continue }
            guard let feature = scoring.named(ExtractionFeature(featureName)) else {
                fail("unknown feature '\(featureName)' (expected one of \(scoring.ids.map(\.rawValue).joined(separator: ", ")))")
                continue
            }
            let key = "\(fixture)\u{0}\(featureName)"
            if let first = seen[key] { fail("second line for fixture '\(fixture)', feature '\(featureName)' (first on line \(first))"); continue }
            seen[key] = number

            do {
                try feature.decode(items, into: &result[fixture, default: PredictedItems()])
            } catch {
                let failure = DecodingFailure.describe(error)
                let path = [JSONPathComponent.key("items")] + failure.path
                fail("\(JSONPath.display(path)): \(failure.message)")
            }
        }
        if !problems.isEmpty { throw PredictionsFileError(problems: problems) }
        return result
    }

    /// The JSONL text for `predictions`: one line per fixture and non-empty feature, fixtures sorted and features in
    /// `scoring`'s order, so runs diff cleanly.
    package static func serialize(_ predictions: [String: PredictedItems], scoring: ScoringRegistry = .shipping) -> String {
        var out = ""
        for fixture in predictions.keys.sorted() {
            guard let set = predictions[fixture] else { continue }
            for feature in scoring.features where feature.count(in: set) > 0 {
                let items = feature.encode(in: set)
                let line: JSONValue = ["fixture": .string(fixture), "feature": .string(feature.id.rawValue), "items": items]
                out += line.serialized() + "\n"
            }
        }
        return out
    }
}
