import Foundation

/// SplitMix64: a tiny, fast generator whose sequence is fixed by its seed, so "random" fault tests replay exactly.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension SeededRandom {
    /// A version-4-shaped UUID drawn from this generator, so generated data (and everything chosen by id order)
    /// is the same on every run.
    public mutating func uuid() -> UUID {
        let high = next(), low = next()
        var bytes = (0..<8).map { UInt8(truncatingIfNeeded: high >> ($0 * 8)) } + (0..<8).map { UInt8(truncatingIfNeeded: low >> ($0 * 8)) }
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}
