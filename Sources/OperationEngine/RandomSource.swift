/// A source of random fractions for backoff jitter, injected so that tests are deterministic.
public protocol RandomSource: Sendable {
    /// A uniformly distributed number in `0 ..< 1`.
    func nextFraction() -> Double
}

/// The live source: the system random number generator.
public struct SystemRandomSource: RandomSource {
    /// Creates the live source.
    public init() {}

    /// Draws from `SystemRandomNumberGenerator`.
    public func nextFraction() -> Double { Double.random(in: 0..<1) }
}
