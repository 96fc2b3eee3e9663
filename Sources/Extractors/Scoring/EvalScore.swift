package import Core

/// The result of scoring predictions against fixtures: per-feature and micro-averaged metrics, plus
/// per-fixture details so a report can show each expected item beside what was predicted.
package struct EvalScore: Sendable, Hashable, Codable {
    package let features: [ExtractionFeature: FeatureScore]
    /// Counts summed over all features, rates recomputed from the sums.
    package let micro: Metrics
    package let fixtures: [FixtureScore]

    package init(features: [ExtractionFeature: FeatureScore], micro: Metrics, fixtures: [FixtureScore]) {
        self.features = features
        self.micro = micro
        self.fixtures = fixtures
    }
}

/// One feature over all fixtures.
package struct FeatureScore: Sendable, Hashable, Codable {
    /// The counts and the rates derived from them.
    package let metrics: Metrics
    /// False positives that cite an acceptable source of some expected item but carry another key date.
    package let dateMistakes: Int
    /// Keyed by field name (`time`, `location`, `category`, `priority`, `action_required`, `status`, `response`).
    package let fieldAccuracy: [String: FieldAccuracy]

    package init(metrics: Metrics, dateMistakes: Int, fieldAccuracy: [String: FieldAccuracy]) {
        self.metrics = metrics
        self.dateMistakes = dateMistakes
        self.fieldAccuracy = fieldAccuracy
    }

    package var tp: Int { metrics.tp }
    package var fp: Int { metrics.fp }
    package var fn: Int { metrics.fn }
    /// Nil when nothing was predicted.
    package var precision: Double? { metrics.precision }
    package var recall: Double { metrics.recall }
    package var f1: Double { metrics.f1 }

    enum CodingKeys: String, CodingKey {
        case tp, fp, fn, precision, recall, f1
        case dateMistakes = "date_mistakes"
        case fieldAccuracy = "field_accuracy"
    }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let metrics = Metrics(tp: try c.decode(Int.self, forKey: .tp), fp: try c.decode(Int.self, forKey: .fp), fn: try c.decode(Int.self, forKey: .fn))
        self.init(metrics: metrics, dateMistakes: try c.decode(Int.self, forKey: .dateMistakes),
                  fieldAccuracy: try c.decode([String: FieldAccuracy].self, forKey: .fieldAccuracy))
    }

    /// The counts and rates as `Metrics` writes them (`precision: null` when nothing was predicted), then the rest.
    package func encode(to encoder: any Encoder) throws {
        try metrics.encode(to: encoder)
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(dateMistakes, forKey: .dateMistakes)
        try c.encode(fieldAccuracy, forKey: .fieldAccuracy)
    }
}

/// Everything scored in one fixture.
package struct FixtureScore: Sendable, Hashable, Codable {
    package let fixture: String
    package let features: [ExtractionFeature: FeatureDetail]

    package init(fixture: String, features: [ExtractionFeature: FeatureDetail]) {
        self.fixture = fixture
        self.features = features
    }
}

/// One feature in one fixture: which items paired up and which did not.
package struct FeatureDetail: Sendable, Hashable, Codable {
    package let matched: [MatchedPair]
    package let falsePositives: [FalsePositive]
    package let falseNegatives: [FalseNegative]

    package init(matched: [MatchedPair], falsePositives: [FalsePositive], falseNegatives: [FalseNegative]) {
        self.matched = matched
        self.falsePositives = falsePositives
        self.falseNegatives = falseNegatives
    }

    package var metrics: Metrics { Metrics(tp: matched.count, fp: falsePositives.count, fn: falseNegatives.count) }
    package var dateMistakes: Int { falsePositives.count { $0.dateMistake } }

    enum CodingKeys: String, CodingKey {
        case matched
        case falsePositives = "false_positives"
        case falseNegatives = "false_negatives"
    }
}

/// A true positive. Indices point into the fixture's expected list and the prediction list.
package struct MatchedPair: Sendable, Hashable, Codable {
    package let expectedIndex: Int
    package let predictedIndex: Int
    package let expected: JSONValue
    package let predicted: JSONValue
    /// Field name → whether the prediction got it right.
    package let fields: [String: Bool]

    package init(expectedIndex: Int, predictedIndex: Int, expected: JSONValue, predicted: JSONValue, fields: [String: Bool]) {
        self.expectedIndex = expectedIndex
        self.predictedIndex = predictedIndex
        self.expected = expected
        self.predicted = predicted
        self.fields = fields
    }

    enum CodingKeys: String, CodingKey {
        case expected, predicted, fields
        case expectedIndex = "expected_index"
        case predictedIndex = "predicted_index"
    }
}

package struct FalsePositive: Sendable, Hashable, Codable {
    package let predictedIndex: Int
    package let predicted: JSONValue
    /// Cites an acceptable source of some expected item, but with a different key date.
    package let dateMistake: Bool

    package init(predictedIndex: Int, predicted: JSONValue, dateMistake: Bool) {
        self.predictedIndex = predictedIndex
        self.predicted = predicted
        self.dateMistake = dateMistake
    }

    enum CodingKeys: String, CodingKey {
        case predicted
        case predictedIndex = "predicted_index"
        case dateMistake = "date_mistake"
    }
}

package struct FalseNegative: Sendable, Hashable, Codable {
    package let expectedIndex: Int
    package let expected: JSONValue

    package init(expectedIndex: Int, expected: JSONValue) {
        self.expectedIndex = expectedIndex
        self.expected = expected
    }

    enum CodingKeys: String, CodingKey {
        case expected
        case expectedIndex = "expected_index"
    }
}
