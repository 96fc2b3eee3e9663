
/// Why an item the model returned was not kept (or was kept with a correction).
package struct ExtractionNote: Sendable, Hashable, Codable, CustomStringConvertible {
    package enum Kind: String, Sendable, Codable {
        /// The item cited message ids that were not in the input; they were removed (or the item was, if none remained).
        case unknownSource = "unknown_source"
        /// The item was dropped for another reason (e.g. its date could not be read).
        case dropped
        /// Code resolved the quoted date phrase to a different date than the model's; code's date was kept.
        case dateCorrected = "date_corrected"
        /// Code could not read the whole date phrase, so the model's plausible date was kept (`modelDate` equals the date).
        case dateUnconfirmed = "date_unconfirmed"
        /// The item's evidence was found in another message of the window than the one it cited; that one is cited now.
        case recited
        /// The item's evidence occurs in no message of the window; the item was dropped.
        case noEvidence = "no_evidence"
        /// The item's evidence is not verbatim in the message it cites but aligns with it (a little misquoted); kept.
        case alignedEvidence = "aligned_evidence"
        /// The item's only evidence is a message addressing the assistant or its rules (`PromptInjection`); dropped.
        case injection
        /// The item's main text (title, task, decision, event) shares nothing with the messages it cites; dropped.
        case unbacked
        /// One field (a time, a location) is not in the messages the item cites; it was cleared, the item kept.
        case fieldCleared = "field_cleared"
    }

    package let feature: ExtractionFeature
    package let kind: Kind
    package let message: String

    package var description: String { "\(feature.rawValue): \(kind.rawValue): \(message)" }

    /// Whether the note's item was dropped (an `unknownSource` note may instead only have lost some of its ids).
    package var droppedItem: Bool { message.hasPrefix("dropped ") }
}
