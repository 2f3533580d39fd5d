/// The order in which elements both sides inserted at the same place come out of a merge.
enum ConcurrentInsertOrder: Sendable {
    /// The server's ("theirs") first: what sync uses, so every device orders them alike.
    case theirsFirst
    /// This device's ("mine") first: the mirror image, used to state the merge's symmetry exactly.
    case mineFirst
}

/// A run of base elements both sides changed in ways that do not agree, as one piece of a merged list.
struct ListConflictRegion<Element: Equatable>: Equatable {
    /// The base elements of the region.
    var base: [Element]
    /// What this device has in their place (kept in the merged list until resolved).
    var mine: [Element]
    /// What the server has in their place.
    var theirs: [Element]
    /// Whether the region is one base element that each side changed or removed (`mine` and `theirs` hold at
    /// most one element), rather than a run.
    var isSingleElement: Bool
}

/// A piece of a merged list: elements that merged cleanly, or a conflict region.
enum ListMergeSegment<Element: Equatable>: Equatable {
    /// Elements both sides agree on, or that only one side changed.
    case merged([Element])
    /// A region changed differently on both sides.
    case conflict(ListConflictRegion<Element>)
}

/// The three-way merge of a list, element by element (diff3 over each side's longest-common-subsequence diff).
///
/// Each side's diff against the base is split into element edits (`ListDiff.elementEdits`): a base element
/// removed, a base element changed (a run replaced by a run of the same length pairs up element by element),
/// an insertion into a gap, or a run replaced by a run of another length (a block, which has no per-element
/// reading). Edits of the two sides that touch the same base elements, or that both insert into the same gap,
/// or where one inserts strictly inside a block the other replaced, form a group; everything else applies as it is:
/// - untouched on one side, edited on the other: the edit (a change, a removal, an insertion, a block);
/// - the same result on both sides (the same change, both removed it, the same insertion): that result;
/// - insertions only, into the same gap, differing: both, the server's first (not a conflict);
/// - otherwise a conflict: one element changed differently on both sides, or changed on one and removed on the
///   other, is a single-element conflict; any other group is one conflict for its whole run.
/// An insertion next to an element the other side changed or removed is not in its group: it stays where it was
/// added. Conflicts with nothing merged between them are joined into one when either side of the first is empty,
/// so that no two conflicts of a list start at the same place of the merged list (see `RecipeMerge`).
enum ListMerge {
    /// Merges `mine` and `theirs`, both edited from `base`, into segments in list order.
    static func merge<Element: Equatable>(
        base: [Element], mine: [Element], theirs: [Element], concurrentInserts: ConcurrentInsertOrder = .theirsFirst
    ) -> [ListMergeSegment<Element>] {
        let edits = ListDiff.elementEdits(from: base, to: mine).map { SidedEdit(edit: $0, isMine: true) }
            + ListDiff.elementEdits(from: base, to: theirs).map { SidedEdit(edit: $0, isMine: false) }
        var segments: [ListMergeSegment<Element>] = []
        var cursor = 0
        for group in groups(of: edits) {
            let lo = group.map(\.edit.lo).min() ?? cursor
            let hi = group.map(\.edit.hi).max() ?? cursor
            append(.merged(Array(base[cursor..<lo])), to: &segments)
            append(resolve(group, base: base, lo: lo, hi: hi, concurrentInserts: concurrentInserts), to: &segments)
            cursor = hi
        }
        append(.merged(Array(base[cursor...])), to: &segments)
        return segments
    }

    /// An edit and the side that made it.
    struct SidedEdit<Element: Equatable> {
        var edit: ListEdit<Element>
        var isMine: Bool
    }

    /// The edits split into groups of overlapping edits (see the type's summary), in list order.
    static func groups<Element>(of edits: [SidedEdit<Element>]) -> [[SidedEdit<Element>]] {
        let sorted = edits.sorted { ($0.edit.lo, $0.edit.hi) < ($1.edit.lo, $1.edit.hi) }
        var parent = Array(sorted.indices)
        func root(_ index: Int) -> Int {
            var index = index
            while parent[index] != index {
                parent[index] = parent[parent[index]]
                index = parent[index]
            }
            return index
        }
        for first in sorted.indices {
            for second in (first + 1)..<sorted.count {
                let (a, b) = (sorted[first].edit, sorted[second].edit)
                // Sorted by `lo`: nothing further can overlap `a` once an edit starts at or past its end.
                if b.lo > a.lo, b.lo >= a.hi { break }
                if sorted[first].isMine != sorted[second].isMine, overlap(a, b) {
                    parent[root(second)] = root(first)
                }
            }
        }
        var members: [Int: [SidedEdit<Element>]] = [:]
        for index in sorted.indices { members[root(index), default: []].append(sorted[index]) }
        // Groups never interleave (a group covers its span), so ordering them by where they start orders the list;
        // an insertion into a gap sorts before a change of the element after that gap.
        return members.values.sorted { first, second in
            let a = (first.map(\.edit.lo).min() ?? 0, first.map(\.edit.hi).max() ?? 0)
            let b = (second.map(\.edit.lo).min() ?? 0, second.map(\.edit.hi).max() ?? 0)
            return a < b
        }
    }

    /// Whether two edits of different sides must be decided together.
    static func overlap<Element>(_ a: ListEdit<Element>, _ b: ListEdit<Element>) -> Bool {
        switch (a.isInsertion, b.isInsertion) {
        case (true, true): a.lo == b.lo
        case (true, false): b.lo < a.lo && a.lo < b.hi
        case (false, true): a.lo < b.lo && b.lo < a.hi
        case (false, false): max(a.lo, b.lo) < min(a.hi, b.hi)
        }
    }

    /// The segment a group of edits spanning base `lo..<hi` merges to.
    static func resolve<Element: Equatable>(
        _ group: [SidedEdit<Element>], base: [Element], lo: Int, hi: Int, concurrentInserts: ConcurrentInsertOrder
    ) -> ListMergeSegment<Element> {
        let mineEdits = group.filter(\.isMine).map(\.edit)
        let theirsEdits = group.filter { !$0.isMine }.map(\.edit)
        let mine = apply(mineEdits, to: base, lo: lo, hi: hi)
        let theirs = apply(theirsEdits, to: base, lo: lo, hi: hi)
        if theirsEdits.isEmpty || mine == theirs { return .merged(mine) }
        if mineEdits.isEmpty { return .merged(theirs) }
        if group.allSatisfy(\.edit.isInsertion) {
            return .merged(concurrentInserts == .theirsFirst ? theirs + mine : mine + theirs)
        }
        let singleElement = group.count == 2 && hi - lo == 1 && group.allSatisfy { $0.edit.lo == lo && $0.edit.hi == hi }
            && mine.count <= 1 && theirs.count <= 1
        return .conflict(ListConflictRegion(
            base: Array(base[lo..<hi]), mine: mine, theirs: theirs, isSingleElement: singleElement))
    }

    /// The base elements `lo..<hi` with `edits` (sorted, inside that range) applied.
    static func apply<Element>(_ edits: [ListEdit<Element>], to base: [Element], lo: Int, hi: Int) -> [Element] {
        var result: [Element] = []
        var position = lo
        for edit in edits {
            result += base[position..<edit.lo]
            result += edit.replacement
            position = edit.hi
        }
        result += base[position..<hi]
        return result
    }

    /// Appends `segment`, dropping empty merged runs, joining merged runs, and joining a conflict to the one before
    /// it when nothing merged lies between them and either side of the earlier one is empty.
    static func append<Element>(_ segment: ListMergeSegment<Element>, to segments: inout [ListMergeSegment<Element>]) {
        switch (segments.last, segment) {
        case (_, .merged(let elements)) where elements.isEmpty:
            return
        case (.merged(let before)?, .merged(let elements)):
            segments[segments.count - 1] = .merged(before + elements)
        case (.conflict(let before)?, .conflict(let region)) where before.mine.isEmpty || before.theirs.isEmpty:
            segments[segments.count - 1] = .conflict(ListConflictRegion(
                base: before.base + region.base, mine: before.mine + region.mine,
                theirs: before.theirs + region.theirs, isSingleElement: false))
        default:
            segments.append(segment)
        }
    }
}
