import JobsKit
/// SipHash-2-4 (Aumasson & Bernstein), implemented here because the package has no crypto dependency.
///
/// The eval cache names files by a hash of the request; two SipHash passes with different keys give a
/// 128-bit name, so an accidental collision is out of reach (and the cache file still stores the request
/// to rule one out). Not used for anything secret.
public struct SipHash24: Sendable {
    private let k0: UInt64
    private let k1: UInt64

    public init(k0: UInt64, k1: UInt64) {
        self.k0 = k0
        self.k1 = k1
    }

    /// The key as 16 little-endian bytes, as in the reference implementation's test vectors.
    public init(key: [UInt8]) {
        precondition(key.count == 16, "SipHash needs a 16-byte key")
        self.init(k0: Self.littleEndianWord(key, at: 0), k1: Self.littleEndianWord(key, at: 8))
    }

    public func hash(_ bytes: some Collection<UInt8>) -> UInt64 {
        var v0: UInt64 = 0x736f_6d65_7073_6575 ^ k0
        var v1: UInt64 = 0x646f_7261_6e64_6f6d ^ k1
        var v2: UInt64 = 0x6c79_6765_6e65_7261 ^ k0
        var v3: UInt64 = 0x7465_6462_7974_6573 ^ k1

        func round() {
            v0 &+= v1; v1 = rotl(v1, 13); v1 ^= v0; v0 = rotl(v0, 32)
            v2 &+= v3; v3 = rotl(v3, 16); v3 ^= v2
            v0 &+= v3; v3 = rotl(v3, 21); v3 ^= v0
            v2 &+= v1; v1 = rotl(v1, 17); v1 ^= v2; v2 = rotl(v2, 32)
        }
        func compress(_ m: UInt64) {
            v3 ^= m
            round(); round()
            v0 ^= m
        }

        var word: UInt64 = 0
        var filled = 0
        var length: UInt64 = 0
        for byte in bytes {
            word |= UInt64(byte) << (8 * UInt64(filled))
            filled += 1
            length &+= 1
            if filled == 8 {
                compress(word)
                word = 0
                filled = 0
            }
        }
        compress(word | (length << 56))
        v2 ^= 0xff
        round(); round(); round(); round()
        return v0 ^ v1 ^ v2 ^ v3
    }

    private func rotl(_ x: UInt64, _ b: UInt64) -> UInt64 { (x << b) | (x >> (64 - b)) }

    private static func littleEndianWord(_ bytes: [UInt8], at offset: Int) -> UInt64 {
        (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[offset + $1]) << (8 * UInt64($1)) }
    }
}

/// A 128-bit content hash as 32 lowercase hex digits: two SipHash-2-4 passes under fixed, different keys.
public enum ContentHash {
    private static let first = SipHash24(k0: 0x0706_0504_0302_0100, k1: 0x0f0e_0d0c_0b0a_0908)
    private static let second = SipHash24(k0: 0x9e37_79b9_7f4a_7c15, k1: 0xbf58_476d_1ce4_e5b9)

    public static func hex(_ bytes: [UInt8]) -> String {
        hex64(first.hash(bytes)) + hex64(second.hash(bytes))
    }

    private static func hex64(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
