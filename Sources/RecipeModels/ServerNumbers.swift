/// The numbers a recipe server sends that `recipes` keeps and counts on: recipe versions and positions in its
/// changes feed.
///
/// Each is taken only between bounds: the largest is 2^53 − 1, the largest integer every JSON reader holds exactly
/// (RFC 8259, section 6), far beyond any count of writes. A server that sends more (`9223372036854775807`, say) has
/// that recipe's change refused with a message; nothing here ever adds to such a number.
public enum ServerNumbers {
    /// The largest version or feed position taken.
    public static let maximum: Int64 = 9_007_199_254_740_991

    /// Whether `version` is one a recipe can have: from 1 (a new recipe's) to `maximum`.
    public static func isVersion(_ version: Int64) -> Bool { (1...maximum).contains(version) }

    /// Whether `seq` is a position in a changes feed: from 0 (before the first change) to `maximum`.
    public static func isSequence(_ seq: Int64) -> Bool { (0...maximum).contains(seq) }

    /// The version a write based on `base` becomes (`base` + 1, or 1 for a recipe the server never had); nil when
    /// `base` is out of bounds, so that no sum overflows.
    public static func next(after base: Int64?) -> Int64? {
        guard let base else { return 1 }
        guard isVersion(base), base < maximum else { return nil }
        return base + 1
    }
}
