/// One change a side made to a base list: the base elements `lo..<hi` replaced by `replacement`.
///
/// `lo == hi` is an insertion before base element `lo` (the gap `lo`); an empty replacement is a removal.
struct ListEdit<Element: Equatable>: Equatable {
    /// The first base element replaced, or the gap inserted into.
    var lo: Int
    /// One past the last base element replaced.
    var hi: Int
    /// What the side has in their place.
    var replacement: [Element]

    /// Whether the edit only inserts, replacing no base element.
    var isInsertion: Bool { lo == hi }
}

/// The two-way diff each side of a merge is read with: a longest common subsequence against the base.
enum ListDiff {
    /// The edits that turn `base` into `other`: the maximal runs between elements a longest common subsequence
    /// keeps, in base order. Two edits never touch: at least one kept base element lies between them.
    ///
    /// The common prefix and suffix are matched first (they belong to some longest common subsequence), so the
    /// quadratic table only covers the changed middle. Ties prefer keeping the earlier base element.
    static func edits<Element: Equatable>(from base: [Element], to other: [Element]) -> [ListEdit<Element>] {
        let pairs = matchedPairs(base, other)
        var edits: [ListEdit<Element>] = []
        var previous = (base: -1, other: -1)
        for pair in pairs + [(base.count, other.count)] {
            if pair.0 > previous.base + 1 || pair.1 > previous.other + 1 {
                edits.append(ListEdit(
                    lo: previous.base + 1, hi: pair.0, replacement: Array(other[(previous.other + 1)..<pair.1])))
            }
            previous = (pair.0, pair.1)
        }
        return edits
    }

    /// The edits of `edits(from:to:)` with the ones that read element by element split up: a removal of several
    /// elements becomes one removal per element, and a run replaced by a run of the same length becomes one change
    /// per element (the k-th base element changed to the k-th new one). Other replacements stay whole.
    static func elementEdits<Element: Equatable>(from base: [Element], to other: [Element]) -> [ListEdit<Element>] {
        edits(from: base, to: other).flatMap { edit -> [ListEdit<Element>] in
            let length = edit.hi - edit.lo
            if length > 0, edit.replacement.isEmpty {
                return (edit.lo..<edit.hi).map { ListEdit(lo: $0, hi: $0 + 1, replacement: []) }
            }
            if length > 1, edit.replacement.count == length {
                return (0..<length).map { ListEdit(lo: edit.lo + $0, hi: edit.lo + $0 + 1, replacement: [edit.replacement[$0]]) }
            }
            return [edit]
        }
    }

    /// The index pairs `(in a, in b)` of one longest common subsequence of `a` and `b`, in increasing order.
    static func matchedPairs<Element: Equatable>(_ a: [Element], _ b: [Element]) -> [(Int, Int)] {
        var prefix = 0
        while prefix < a.count, prefix < b.count, a[prefix] == b[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < a.count - prefix, suffix < b.count - prefix,
            a[a.count - 1 - suffix] == b[b.count - 1 - suffix]
        {
            suffix += 1
        }
        let rows = a.count - prefix - suffix
        let columns = b.count - prefix - suffix
        var pairs = (0..<prefix).map { ($0, $0) }
        if rows > 0, columns > 0 {
            // table[i * width + j]: length of a longest common subsequence of the middles' suffixes from i and j.
            let width = columns + 1
            var table = [Int](repeating: 0, count: (rows + 1) * width)
            for i in stride(from: rows - 1, through: 0, by: -1) {
                for j in stride(from: columns - 1, through: 0, by: -1) {
                    table[i * width + j] = a[prefix + i] == b[prefix + j]
                        ? table[(i + 1) * width + j + 1] + 1
                        : max(table[(i + 1) * width + j], table[i * width + j + 1])
                }
            }
            var i = 0
            var j = 0
            while i < rows, j < columns {
                if a[prefix + i] == b[prefix + j] {
                    pairs.append((prefix + i, prefix + j))
                    i += 1
                    j += 1
                } else if table[(i + 1) * width + j] >= table[i * width + j + 1] {
                    i += 1
                } else {
                    j += 1
                }
            }
        }
        pairs += (0..<suffix).map { (a.count - suffix + $0, b.count - suffix + $0) }
        return pairs
    }
}
