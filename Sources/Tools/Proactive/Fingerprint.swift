/// A stable 64-bit FNV-1a hash of the facts a finding rests on, as 16 hex digits. Not a security measure: it only
/// tells "the same subject as before" from "the subject changed", across processes and releases (Swift's
/// `Hasher` is seeded per process, so it cannot be used).
enum Fingerprint {
    static func of(_ parts: [String]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in parts.joined(separator: "\u{1F}").utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
