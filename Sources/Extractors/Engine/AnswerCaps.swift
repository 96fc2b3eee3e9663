import Core

/// An answer held to its schema's `maxItems`. A model that lists more items than the schema allows (OpenAI's strict
/// mode does not enforce the caps; a noisy model repeats itself) keeps its first items, in the order it gave them,
/// and each item left out is noted; refusing the whole answer would lose the items that were right, every night.
enum AnswerCaps {
    /// The answer cut to the caps, and one note per item left out (array items in nested lists, such as cited ids,
    /// are noted once per list).
    static func apply(_ answer: JSONValue, schema: JSONSchema, feature: ExtractionFeature) -> (json: JSONValue, notes: [ExtractionNote]) {
        let (json, cuts) = schema.truncatingArrays(answer)
        var notes: [ExtractionNote] = []
        for cut in cuts {
            if !cut.path.contains("[") {
                // A list of the feature's items: every item past the cap is one dropped item.
                for index in cut.kept..<cut.had {
                    notes.append(ExtractionNote(feature: feature, kind: .dropped,
                                                message: "dropped item \(index + 1) of \(cut.had) at \(cut.path): over the schema's cap of \(cut.kept) items"))
                }
            } else {
                notes.append(ExtractionNote(feature: feature, kind: .dropped,
                                            message: "\(cut.description) (the schema's cap)"))
            }
        }
        return (json, notes)
    }
}
