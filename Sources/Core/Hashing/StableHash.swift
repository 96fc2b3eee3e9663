/// FNV-1a, the one stable hash: finding fingerprints, the keys of a message's second item, the benchmark's prompt
/// cache and the tests' seeded noise. Swift's `Hasher` is seeded per process, so it cannot key anything stored or
/// compared across runs. Not a security measure (SHA-256 from swift-crypto is used where one is needed).
package struct StableHash: Sendable, Hashable {
    /// The 64-bit running hash of the bytes added so far.
    package private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    package init() {}

    package mutating func add(_ byte: UInt8) {
        value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
    }

    /// 64-bit FNV-1a of the text's UTF-8 bytes.
    package static func fnv64(_ text: String) -> UInt64 {
        var hash = StableHash()
        for byte in text.utf8 { hash.add(byte) }
        return hash.value
    }

    /// 32-bit FNV-1a of the text's UTF-8 bytes. Stored keys were made with it: it must never change.
    package static func fnv32(_ text: String) -> UInt32 {
        var hash: UInt32 = 0x811C_9DC5
        for byte in text.utf8 { hash = (hash ^ UInt32(byte)) &* 0x0100_0193 }
        return hash
    }

    /// `value` as `digits` lowercase hex digits, zero-padded on the left.
    package static func hex(_ value: some BinaryInteger, digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
