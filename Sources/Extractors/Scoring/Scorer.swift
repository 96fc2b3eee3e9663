import Core

/// Compares predicted extractions with fixture labels.
///
/// Per fixture and feature, predicted and expected items are paired one to one by a maximum
/// bipartite matching. A pair is allowed when the prediction cites at least one of the expected
/// item's acceptable sources and, for dated features, has the same key date (event `date`, RSVP
/// `event_date`, deadline `deadline`); priority messages pair by message id, decisions by source.
/// Among allowed partners a prediction tries the one with the most correct fields first, so field
/// accuracy is not spoiled by an arbitrary pairing when two items share source and date.
/// Paired items are true positives; unpaired predictions are false positives, unpaired expected
/// items false negatives. See `Metrics` for how empty denominators are defined.
package enum Scorer {
    /// `predictions` is keyed by fixture id; a missing fixture or feature means nothing was predicted. A fixture counts
    /// only for the features it labels (`Fixture.unlabelled`): one with no list for a feature is skipped for it.
    /// Predictions for ids not among `fixtures` are ignored (`PredictionsFile` rejects them on load). Every feature of
    /// `scoring` is scored (the shipping ones unless another registry is given).
    package static func score(fixtures: [Fixture], predictions: [String: PredictedItems],
                             scoring: ScoringRegistry = .shipping) -> EvalScore {
        var fixtureScores: [FixtureScore] = []
        for fixture in fixtures {
            let predicted = predictions[fixture.id] ?? PredictedItems()
            let e = fixture.expected
            // A feature the fixture is not labelled for is not scored on it: its predictions are neither right nor wrong.
            fixtureScores.append(FixtureScore(fixture: fixture.id, features: Dictionary(uniqueKeysWithValues:
                scoring.features.filter { fixture.labels($0.id) }.map { ($0.id, $0.score(expected: e, predicted: predicted)) })))
        }

        var features: [ExtractionFeature: FeatureScore] = [:]
        var micro = Metrics.zero
        for feature in scoring.ids {
            let details = fixtureScores.compactMap { $0.features[feature] }
            let metrics = details.map(\.metrics).reduce(Metrics.zero, +)
            var tallies: [String: (correct: Int, total: Int)] = [:]
            for pair in details.flatMap(\.matched) {
                for (field, correct) in pair.fields {
                    let old = tallies[field] ?? (0, 0)
                    tallies[field] = (old.correct + (correct ? 1 : 0), old.total + 1)
                }
            }
            features[feature] = FeatureScore(
                metrics: metrics,
                dateMistakes: details.map(\.dateMistakes).reduce(0, +),
                fieldAccuracy: tallies.mapValues { FieldAccuracy(correct: $0.correct, total: $0.total) })
            micro = micro + metrics
        }
        return EvalScore(features: features, micro: micro, fixtures: fixtureScores)
    }

    static func scoreFeature<Item: ScoredItem>(expected: [Item], predicted: [Item]) -> FeatureDetail {
        func sharesSource(_ e: Item, _ p: Item) -> Bool { !Set(e.sources).isDisjoint(with: p.sources) }

        let candidates: [[Int]] = predicted.map { p in
            expected.indices
                .filter { sharesSource(expected[$0], p) && expected[$0].keyDate == p.keyDate }
                .map { ($0, expected[$0].fieldResults(predicted: p).count { $0.correct }) }
                .sorted { ($0.1, -$0.0) > ($1.1, -$1.0) }
                .map(\.0)
        }
        let pairs = BipartiteMatching.maximum(candidates: candidates, rightCount: expected.count)

        var matched: [MatchedPair] = []
        var falsePositives: [FalsePositive] = []
        var expectedMatched = [Bool](repeating: false, count: expected.count)
        for (pi, p) in predicted.enumerated() {
            if let ei = pairs[pi] {
                expectedMatched[ei] = true
                let fields = Dictionary(expected[ei].fieldResults(predicted: p).map { ($0.field, $0.correct) },
                                        uniquingKeysWith: { a, _ in a })
                matched.append(MatchedPair(expectedIndex: ei, predictedIndex: pi, expected: json(expected[ei]),
                                           predicted: json(p), fields: fields))
            } else {
                let dateMistake = p.keyDate != nil
                    && expected.contains { sharesSource($0, p) && $0.keyDate != p.keyDate }
                falsePositives.append(FalsePositive(predictedIndex: pi, predicted: json(p), dateMistake: dateMistake))
            }
        }
        let falseNegatives = expected.indices.filter { !expectedMatched[$0] }
            .map { FalseNegative(expectedIndex: $0, expected: json(expected[$0])) }
        matched.sort { $0.expectedIndex < $1.expectedIndex }
        return FeatureDetail(matched: matched, falsePositives: falsePositives, falseNegatives: falseNegatives)
    }

    private static func json(_ item: some Encodable) -> JSONValue {
        (try? JSONValue.encode(item)) ?? .null
    }
}
