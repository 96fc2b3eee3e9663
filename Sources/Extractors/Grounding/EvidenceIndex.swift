/// The window's message texts normalised for the evidence check (`Evidence.normalize`), built once per window and
/// shared by every feature's decode context, so no message is normalised once per feature.
struct EvidenceIndex: Sendable {
    /// `Evidence.normalize` of each message of the window, in window order.
    let texts: [String]

    init(_ window: MessageWindow) {
        texts = window.messages.map { Evidence.normalize($0.text) }
    }

    /// The indices of the window's messages whose normalised text holds `needle` (already normalised).
    func holding(_ needle: String) -> [Int] {
        texts.indices.filter { texts[$0].contains(needle) }
    }
}
