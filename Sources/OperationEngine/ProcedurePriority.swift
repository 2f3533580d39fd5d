/// The order in which ready procedures get a concurrency slot: higher first, then first-come.
public struct ProcedurePriority: RawRepresentable, Comparable, Hashable, Sendable {
    /// The numeric priority; larger runs sooner.
    public var rawValue: Int

    /// Creates a priority from its numeric value.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Background work that may wait behind everything else.
    public static let low = ProcedurePriority(rawValue: -100)
    /// The default.
    public static let normal = ProcedurePriority(rawValue: 0)
    /// Work someone is waiting for.
    public static let high = ProcedurePriority(rawValue: 100)

    /// Compares by numeric value.
    public static func < (lhs: ProcedurePriority, rhs: ProcedurePriority) -> Bool { lhs.rawValue < rhs.rawValue }
}
