import Locking
import OperationEngine

/// A deterministic random source (SplitMix64) for tests: the same seed gives the same fractions.
public final class SeededRandomSource: RandomSource {
    private let seed: Locked<UInt64>

    /// Creates a source from `seed`.
    public init(seed: UInt64) { self.seed = Locked(seed) }

    /// The next fraction in `0 ..< 1`.
    public func nextFraction() -> Double {
        Double(nextUInt64() >> 11) / Double(UInt64(1) << 53)
    }

    /// The next 64 random bits.
    public func nextUInt64() -> UInt64 {
        seed.withLock { state in
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// A number in `0 ..< upperBound`.
    public func next(below upperBound: Int) -> Int {
        Int(nextUInt64() % UInt64(max(1, upperBound)))
    }
}

/// A random source that always returns the same fraction (for example 1 for the full backoff ceiling).
public struct FixedRandomSource: RandomSource {
    /// The fraction returned.
    public let fraction: Double

    /// Creates the source.
    public init(_ fraction: Double) { self.fraction = fraction }

    /// Returns `fraction`.
    public func nextFraction() -> Double { fraction }
}
