package import Core

/// What a report shows of a predicted item beyond the fields it is scored on: the words its dates came from
/// (`date_phrase`, and any other `*_phrase`) and its evidence, the text of the messages it cites (as `extract --json`
/// shows them), so a reviewer sees why the model put the item there and on that day.
package enum PredictionWords {
    /// Per fixture, per feature, one object per predicted item, in the order of the variant's predictions.
    package typealias Table = [String: [ExtractionFeature: [JSONValue]]]

    /// The shown words of each of `feature`'s items in `extraction`, in prediction order; `messages` (id to text) gives
    /// each item's `evidence`: `id: text` of every message it cites, each cut to 300 characters.
    package static func words(_ feature: any Extractor, _ extraction: Extraction, messages: [String: String] = [:]) -> [JSONValue] {
        feature.reportItems(extraction).map { item in
            guard case .object(let fields) = item.fields else { return .object([:]) }
            var shown = JSONObject(fields.filter { key, value in
                (key == "evidence" || key.hasSuffix("_phrase")) && value != .null
            }.map { ($0.key, $0.value) })
            let cited = cited(in: item.fields).filter { messages[$0] != nil }
            if shown["evidence"] == nil, !cited.isEmpty {
                shown["evidence"] = .array(cited.map { .string("\($0): \(messages[$0]!.prefix(300))") })
            }
            return .object(shown)
        }
    }

    /// The message ids `value` cites at any depth (`sources`, `source_message_ids`, `message_id`,
    /// `response_message_id`), in the order they appear, once each: one item's, or a whole extraction's.
    package static func cited(in value: JSONValue) -> [String] {
        var ids: [String] = []
        func add(_ id: String?) { if let id, !ids.contains(id) { ids.append(id) } }
        func collect(_ value: JSONValue) {
            switch value {
            case .object(let object):
                for key in ["message_id", "response_message_id"] { add(object[key]?.stringValue) }
                for key in ["sources", "source_message_ids"] { for id in object[key]?.arrayValue ?? [] { add(id.stringValue) } }
                for (_, child) in object { collect(child) }
            case .array(let values): values.forEach(collect)
            default: break
            }
        }
        collect(value)
        return ids
    }

    /// `score` with each predicted item (matched or false positive) carrying its words from `table`.
    package static func attach(_ table: Table, to score: EvalScore) -> EvalScore {
        let fixtures = score.fixtures.map { fixture -> FixtureScore in
            guard let byFeature = table[fixture.fixture] else { return fixture }
            let features = fixture.features.reduce(into: [ExtractionFeature: FeatureDetail]()) { result, entry in
                    let (feature, detail) = entry
                    let words = byFeature[feature] ?? []
                    func with(_ predicted: JSONValue, _ index: Int) -> JSONValue {
                        guard words.indices.contains(index), case .object(let extra) = words[index], !extra.isEmpty,
                              case .object(var object) = predicted else { return predicted }
                        for (key, value) in extra where object[key] == nil { object[key] = value }
                        return .object(object)
                    }
                    result[feature] = FeatureDetail(
                        matched: detail.matched.map {
                            MatchedPair(expectedIndex: $0.expectedIndex, predictedIndex: $0.predictedIndex, expected: $0.expected,
                                        predicted: with($0.predicted, $0.predictedIndex), fields: $0.fields)
                        },
                        falsePositives: detail.falsePositives.map {
                            FalsePositive(predictedIndex: $0.predictedIndex, predicted: with($0.predicted, $0.predictedIndex), dateMistake: $0.dateMistake)
                        },
                        falseNegatives: detail.falseNegatives)
                }
            return FixtureScore(fixture: fixture.fixture, features: features)
        }
        return EvalScore(features: score.features, micro: score.micro, fixtures: fixtures)
    }
}
