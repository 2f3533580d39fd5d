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
    /// One key's line; kept in the table for a while when it empties (see `idleLines`).
    final class Line {
        // @exclusivity(unchecked): like the whole structure, a line is only used by its owner (the queue, under its
        // lock), so the runtime's dynamic exclusivity bookkeeping on each access would only cost time.
        let key: String
        @exclusivity(unchecked) var slots: Deque<Slot> = []
        /// The most slots it has held since its storage was last given back.
        @exclusivity(unchecked) var longest = 0
        /// A lower bound of the capacity of `slots`, as last reserved (see `append`).
        @exclusivity(unchecked) var reserved = 0

        init(key: String) { self.key = key }

        /// Appends `slot`; returns the new number of slots. The storage grows fourfold, from 8 (`Deque` on its own
        /// grows by half, so a line of a hundred members would be reallocated and copied a dozen times — each
        /// growth past a kilobyte also makes the allocator consolidate its small free chunks).
        @inline(__always)
        func append(_ slot: consuming Slot) -> Int {
            let count = slots.count
            if count >= reserved {
                reserved = Swift.max(8, count * 4)
                slots.reserveCapacity(reserved)
            }
            slots.append(slot)
            let new = count + 1
            if new > longest { longest = new }
            return new
        }
    }

    /// A place in a line: the member, and for a member with several keys the counter it shares across its lines.
    struct Slot {
        let member: Member
        let waiting: WaitCounter?
    }

    /// For a member with several keys: in how many of its lines it is not at the head yet.
    final class WaitCounter {
        @exclusivity(unchecked) var notAtHead: Int   // unchecked: as for `Line`

        init(notAtHead: Int) { self.notAtHead = notAtHead }
    }

    /// Where a member stands: in no line, in one line, or in several lines with a shared counter.
    enum Ticket {
        case none
        case one(Line)
        // `indirect`: a member with several keys is rare; boxed, the ticket every procedure stores is 9 bytes.
        indirect case several([Line], WaitCounter)
    }

    /// The lines by key, including up to about `idleLimit` empty ones kept for reuse.
    private var lines: [String: Line] = [:]
    /// How many lines in `lines` are empty. A line that empties stays in the table, so that a key used again soon
    /// (a procedure per key at a time, one after the other) costs no new line, no allocation of its slots and no
    /// insertion and removal in the table; when idle lines are both many and the majority, they are all dropped.
    private var idleLines = 0
    /// The most slots whose storage an idle line keeps (see `lineBecameIdle`; `Line.append` reserves 8, 32, 128,
    /// 512, … slots).
    private static var keptSlots: Int { 128 }
    /// The number of idle lines below which none is dropped.
    private static var idleLimit: Int { 1_024 }

    /// Whether no member is in any line.
    var isEmpty: Bool { lines.count == idleLines }

    /// Joins the end of each key's line (`keys` without duplicates); `granted` when the member holds all its keys
    /// at once. Keep the ticket to leave.
    mutating func join(_ member: consuming Member, keys: [String]) -> (ticket: Ticket, granted: Bool) {
        switch keys.count {
        case 0:
            return (.none, true)
        case 1:
            let line = self.line(for: keys[0])
            let count = line.append(Slot(member: member, waiting: nil))
            return (.one(line), count == 1)
        default:
            let counter = WaitCounter(notAtHead: 0)
            var joined: [Line] = []
            joined.reserveCapacity(keys.count)
            for key in keys {
                let line = self.line(for: key)
                let count = line.append(Slot(member: copy member, waiting: counter))
                if count > 1 { counter.notAtHead += 1 }
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

    /// Calls `body` with each member of each line (a member with several keys once per line).
    func forEachMember(_ body: (Member) -> Void) {
        for line in lines.values {
            for slot in line.slots { body(slot.member) }
        }
    }

    /// The members in `key`'s line, holder first.
    func members(of key: String) -> [Member] {
        guard let line = lines[key] else { return [] }
        return line.slots.map(\.member)
    }

    // MARK: Private

    /// The line of `key`, created empty and entered in the table if there is none.
    private mutating func line(for key: String) -> Line {
        if let line = lines[key] {
            if line.slots.isEmpty { idleLines -= 1 }
            return line
        }
        let line = Line(key: key)
        lines[key] = line
        return line
    }

    private mutating func leave(_ member: Member, line: Line, granted: (Member) -> Void) {
        guard !line.slots.isEmpty else { return }   // not in this line (a ticket always names the member's lines)
        // The holder usually leaves: take the head out (a move, no copy), and peek at the next in place.
        let head = line.slots.removeFirst()
        if head.member == member {
            if !line.slots.isEmpty {
                let next = line.slots.startIndex
                if let counter = line.slots[next].waiting {
                    counter.notAtHead -= 1
                    if counter.notAtHead == 0 { granted(line.slots[next].member) }
                } else {
                    granted(line.slots[next].member)
                }
            }
        } else {
            line.slots.prepend(head)
            if let index = line.slots.firstIndex(where: { $0.member == member }) { line.slots.remove(at: index) }
        }
        if line.slots.isEmpty { lineBecameIdle(line) }
    }

    /// Keeps an emptied line for reuse, dropping every idle line when there are too many.
    private mutating func lineBecameIdle(_ line: Line) {
        if line.reserved > Self.keptSlots || line.longest > Self.keptSlots {
            // It had a large burst of members: give its storage back rather than keep it idle. Smaller storage
            // (at most `keptSlots` slots, 2 KiB per line, so at most about 2 MiB for all idle lines) is kept: the
            // lines of a batch all empty at its end, one after the other, and freeing their storage then — under
            // the queue's lock — let glibc merge the freed blocks into large ones, each of which makes it
            // consolidate every small chunk freed so far (measured: several milliseconds in the engine benchmark).
            line.slots = []
            line.longest = 0
            line.reserved = 0
        }
        idleLines += 1
        if idleLines > Self.idleLimit, idleLines * 2 > lines.count {
            lines = lines.filter { !$0.value.slots.isEmpty }
            idleLines = 0
        }
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
