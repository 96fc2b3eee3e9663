package import Foundation

/// The package's one seeded generator (Steele, Lea and Flood's SplitMix64): the benchmark workloads and the
/// "random" fault tests replay exactly from a seed. The helpers below do their own range
/// arithmetic instead of the standard library's `random(in:using:)`, whose algorithm may change between Swift
/// releases: the same seed must give the same workload on every toolchain.
package struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    package init(seed: UInt64) { state = seed }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in `range` (the modulo bias is far below anything a workload could notice).
    package mutating func int(_ range: ClosedRange<Int>) -> Int {
        let width = UInt64(range.upperBound - range.lowerBound) + 1
        return range.lowerBound + Int(next() % width)
    }

    /// Uniform in [0, 1).
    package mutating func unit() -> Double { Double(next() >> 11) * 0x1p-53 }

    package mutating func chance(_ probability: Double) -> Bool { unit() < probability }

    package mutating func pick<T>(_ items: [T]) -> T { items[int(0...(items.count - 1))] }

    /// A version-4 UUID from the stream, so ids are reproducible too.
    package mutating func uuid() -> UUID {
        let a = next(), b = next()
        var bytes = (0..<8).map { UInt8(truncatingIfNeeded: a >> (8 * $0)) } + (0..<8).map { UInt8(truncatingIfNeeded: b >> (8 * $0)) }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }

    /// An independent stream for item `index`, so item i is the same whatever the number of items.
    package static func stream(seed: UInt64, index: UInt64, salt: UInt64) -> SplitMix64 {
        var mixer = SplitMix64(seed: seed ^ (salt &* 0xD1B5_4A32_D192_ED03))
        for _ in 0..<2 { _ = mixer.next() }
        return SplitMix64(seed: mixer.next() ^ (index &* 0x9E37_79B9_7F4A_7C15))
    }
}
