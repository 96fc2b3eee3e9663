import Core

/// A stable 64-bit hash (`StableHash`) of the facts a finding rests on, as 16 hex digits: it tells "the same subject
/// as before" from "the subject changed", across processes and releases.
enum Fingerprint {
    static func of(_ parts: [String]) -> String {
        StableHash.hex(StableHash.fnv64(parts.joined(separator: "\u{1F}")), digits: 16)
    }
}
