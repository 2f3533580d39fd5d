import Synchronization

/// A process-wide unique, increasing identifier of a procedure.
public struct ProcedureID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The number; later procedures have larger numbers.
    public let rawValue: UInt64

    private static let counter = Atomic<UInt64>(0)

    /// Draws the next identifier.
    static func next() -> ProcedureID {
        ProcedureID(rawValue: counter.wrappingAdd(1, ordering: .relaxed).newValue)   // one `lock xadd`, no loop
    }

    /// Compares by creation order.
    public static func < (lhs: ProcedureID, rhs: ProcedureID) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The number as text, prefixed with `#`.
    public var description: String { "#\(rawValue)" }
}
