import DequeModule

/// The lines of mutual exclusion: per key, a first-come line of members; the head holds the key.
///
/// A plain structure with no I/O or locking (the queue guards it), so it is tested directly. A member joins every
/// one of its keys' lines in one step, so all lines agree on one order and several keys never deadlock.
///
/// Joining returns a `Ticket` that the caller keeps (the queue keeps it in the procedure): it names the member's
/// lines, so leaving needs no lookup by key or by member. A member with one key — the common case — is granted
/// when it reaches the head of its line; only a member with several keys carries a counter of the lines where it
/// is not yet at the head. The lines are reference types shared with the tickets: do not copy the structure.
struct ExclusivityLines<Member: Equatable> {
    /// One key's line; removed from the table as soon as it is empty.
    final class Line {
        let key: String
        var slots: Deque<Slot> = []

        init(key: String) { self.key = key }
    }

    /// A place in a line: the member, and for a member with several keys the counter it shares across its lines.
    struct Slot {
        let member: Member
        let waiting: WaitCounter?
    }

    /// For a member with several keys: in how many of its lines it is not at the head yet.
    final class WaitCounter {
        var notAtHead: Int

        init(notAtHead: Int) { self.notAtHead = notAtHead }
    }

    /// Where a member stands: in no line, in one line, or in several lines with a shared counter.
    enum Ticket {
        case none
        case one(Line)
        case several([Line], WaitCounter)
    }

    private var lines: [String: Line] = [:]

    /// Whether no member is in any line.
    var isEmpty: Bool { lines.isEmpty }

    /// Joins the end of each key's line (`keys` without duplicates); `granted` when the member holds all its keys
    /// at once. Keep the ticket to leave.
    mutating func join(_ member: Member, keys: [String]) -> (ticket: Ticket, granted: Bool) {
        switch keys.count {
        case 0:
            return (.none, true)
        case 1:
            let line = self.line(for: keys[0])
            line.slots.append(Slot(member: member, waiting: nil))
            return (.one(line), line.slots.count == 1)
        default:
            let counter = WaitCounter(notAtHead: 0)
            var joined: [Line] = []
            joined.reserveCapacity(keys.count)
            for key in keys {
                let line = self.line(for: key)
                line.slots.append(Slot(member: member, waiting: counter))
                if line.slots.count > 1 { counter.notAtHead += 1 }
                joined.append(line)
            }
            return (.several(joined, counter), counter.notAtHead == 0)
        }
    }

    /// Leaves every line of `ticket`; calls `granted` for each member that now holds all its keys.
    mutating func leave(_ member: Member, ticket: Ticket, granted: (Member) -> Void) {
        switch ticket {
        case .none:
            return
        case .one(let line):
            leave(member, line: line, granted: granted)
        case .several(let joined, _):
            for line in joined { leave(member, line: line, granted: granted) }
        }
    }

    /// Whether the member of `ticket` holds every one of its keys.
    func holdsAllKeys(_ member: Member, ticket: Ticket) -> Bool {
        switch ticket {
        case .none: true
        case .one(let line): line.slots.first?.member == member
        case .several(_, let counter): counter.notAtHead == 0
        }
    }

    /// The member holding `key`, if any.
    func holder(of key: String) -> Member? { lines[key]?.slots.first?.member }

    /// The members in `key`'s line, holder first.
    func members(of key: String) -> [Member] {
        guard let line = lines[key] else { return [] }
        return line.slots.map(\.member)
    }

    // MARK: Private

    /// The line of `key`, created empty and entered in the table if there is none (one hash lookup).
    private mutating func line(for key: String) -> Line {
        func take(_ line: inout Line) -> Line { line }
        return take(&lines[key, default: Line(key: key)])
    }

    private mutating func leave(_ member: Member, line: Line, granted: (Member) -> Void) {
        if line.slots.first?.member == member {
            line.slots.removeFirst()
            if let next = line.slots.first {
                if let counter = next.waiting {
                    counter.notAtHead -= 1
                    if counter.notAtHead == 0 { granted(next.member) }
                } else {
                    granted(next.member)
                }
            }
        } else if let index = line.slots.firstIndex(where: { $0.member == member }) {
            line.slots.remove(at: index)
        }
        if line.slots.isEmpty { lines.removeValue(forKey: line.key) }
    }
}

extension ExclusivityLines {
    // Conveniences that find a member's ticket by scanning its lines: for tests and rare paths only; the queue
    // keeps each procedure's ticket and uses `join` / `leave`.

    /// Joins the end of each key's line; returns `true` when the member holds all its keys at once.
    mutating func enqueue(_ member: Member, keys: [String]) -> Bool { join(member, keys: keys).granted }

    /// Leaves every line `member` is in (found by scanning); returns the members that now hold all their keys.
    mutating func remove(_ member: Member) -> [Member] {
        var granted: [Member] = []
        leave(member, ticket: ticket(of: member)) { granted.append($0) }
        return granted
    }

    /// Whether `member` is in some line and holds every one of its keys.
    func holdsAllKeys(_ member: Member) -> Bool {
        let ticket = ticket(of: member)
        if case .none = ticket { return false }
        return holdsAllKeys(member, ticket: ticket)
    }

    /// Rebuilds the ticket of `member` by scanning every line (O(members)).
    func ticket(of member: Member) -> Ticket {
        var joined: [Line] = []
        var counter: WaitCounter?
        for line in lines.values {
            guard let slot = line.slots.first(where: { $0.member == member }) else { continue }
            joined.append(line)
            counter = slot.waiting
        }
        if let counter { return .several(joined, counter) }
        return joined.first.map { .one($0) } ?? .none
    }
}
