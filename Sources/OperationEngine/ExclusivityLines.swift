import DequeModule

/// The lines of mutual exclusion: per key, a first-come line of members; the member at the head holds the key.
///
/// A plain value with no I/O or locking (the queue guards it), tested directly. A member joins every one of its keys'
/// lines in one step, so all lines agree on one order and several keys never deadlock. A member holds all its keys
/// when it heads every one of its lines; a member with several keys is counted in `notAtHead` until it does.
struct ExclusivityLines<Member: Hashable> {
    /// The lines by key, head first, including up to `idleLimit` empty ones.
    private var lines: [String: Deque<Member>] = [:]
    /// How many lines in `lines` are empty. An emptied line stays, with its storage, while there are few of them: a
    /// key is usually used again soon (one procedure per key at a time, one after the other), and would otherwise
    /// need a new line each time.
    private var idleLines = 0
    /// The most empty lines kept.
    private static var idleLimit: Int { 1_024 }
    /// For each member with several keys that does not hold them all yet: in how many of its lines it is not the head.
    private var notAtHead: [Member: Int] = [:]

    /// Whether no member is in any line.
    var isEmpty: Bool { lines.count == idleLines }

    /// Joins the end of each key's line (`keys` without duplicates); returns whether the member holds all its keys
    /// at once.
    mutating func join(_ member: Member, keys: [String]) -> Bool {
        var waiting = 0
        for key in keys {
            let (count, wasIdle) = Self.append(member, to: &lines[key])
            if wasIdle { idleLines -= 1 }
            if count > 1 { waiting += 1 }
        }
        if waiting > 0, keys.count > 1 { notAtHead[member] = waiting }
        return waiting == 0
    }

    /// Leaves the lines of `keys`, calling `granted` with each member that now holds all its keys; returns whether
    /// the member was in them.
    @discardableResult
    mutating func leave(_ member: Member, keys: [String], granted: (Member) -> Void) -> Bool {
        if keys.count > 1 { notAtHead.removeValue(forKey: member) }
        var found = false
        for key in keys {
            let (wasIn, next, emptied) = Self.remove(member, from: &lines[key], keepIfEmptied: idleLines < Self.idleLimit)
            found = found || wasIn
            if emptied { idleLines += 1 }
            guard let next else { continue }
            // `next` now heads this line: granted when this was the last line it waited for.
            if let count = notAtHead[next] {
                if count > 1 {
                    notAtHead[next] = count - 1
                } else {
                    notAtHead.removeValue(forKey: next)
                    granted(next)
                }
            } else {
                granted(next)
            }
        }
        return found
    }

    /// Whether `member`, in the lines of `keys`, heads every one of them.
    func holdsAllKeys(_ member: Member, keys: [String]) -> Bool {
        keys.allSatisfy { lines[$0]?.first == member }
    }

    /// The member holding `key`, if any.
    func holder(of key: String) -> Member? { lines[key]?.first }

    /// Every member of every line, each once.
    func allMembers() -> [Member] {
        var seen = Set<Member>()
        return lines.values.flatMap { $0 }.filter { seen.insert($0).inserted }
    }

    /// The members in `key`'s line, holder first.
    func members(of key: String) -> [Member] {
        guard let line = lines[key] else { return [] }
        return Array(line)
    }

    /// Appends `member` to `line`, creating it if there is none; returns the line's new length and whether it was
    /// an idle (empty) line.
    private static func append(_ member: Member, to line: inout Deque<Member>?) -> (count: Int, wasIdle: Bool) {
        guard line != nil else {
            line = [member]
            return (1, false)
        }
        let wasIdle = line!.isEmpty
        line!.append(member)
        return (line!.count, wasIdle)
    }

    /// Removes `member` from `line`; an emptied line is kept when `keepIfEmptied`, else removed. Returns whether
    /// the member was there; the new head when the member was the head (`nil` when it left from the middle, granting
    /// nobody, or the line is now empty); and whether the line was emptied and kept.
    private static func remove(
        _ member: Member, from line: inout Deque<Member>?, keepIfEmptied: Bool
    ) -> (found: Bool, next: Member?, keptEmpty: Bool) {
        guard var members = line.take() else { return (false, nil, false) }
        var found = false
        var next: Member?
        if members.first == member {
            members.removeFirst()
            found = true
            next = members.first
        } else if let index = members.firstIndex(of: member) {
            members.remove(at: index)
            found = true
        }
        let emptied = found && members.isEmpty
        line = emptied && !keepIfEmptied ? nil : members
        return (found, next, emptied && keepIfEmptied)
    }
}
