/// The lines of mutual exclusion: per key, a first-come line of members; the head holds the key.
///
/// A plain structure with no I/O or locking (the queue guards it), so it is tested directly. A member joins every
/// one of its keys' lines in one step, so all lines agree on one order and several keys never deadlock.
///
/// The lines are intrusive lists: a member with one key — the common case — is linked to the next place in its
/// line through a field of its own (`ExclusivityLineMember.nextInLine`), so joining and leaving allocate nothing,
/// copy nothing and count no references; only a member with several keys has a node per line, with a counter
/// shared across its lines of where it is not yet at the head. Members are held unretained: the owner keeps every
/// member alive from its joining to its leaving (the queue does, for the procedures it counts as unfinished).
///
/// Joining returns a `Ticket` that the caller keeps (the queue keeps it in the procedure): it names the member's
/// lines, so leaving needs no lookup by key. The lines are reference types shared with the tickets: do not copy the
/// structure.
struct ExclusivityLines<Member: ExclusivityLineMember> {
    typealias Ticket = ExclusivityTicket

    /// The lines by key, including up to about `idleLimit` empty ones kept for reuse.
    private var lines: [String: ExclusivityLine] = [:]
    /// How many lines in `lines` are empty. A line that empties stays in the table, so that a key used again soon
    /// (a procedure per key at a time, one after the other) costs no new line and no insertion and removal in the
    /// table; when idle lines are both many and the majority, they are all dropped.
    private var idleLines = 0
    /// The number of idle lines below which none is dropped.
    private static var idleLimit: Int { 1_024 }

    /// Whether no member is in any line.
    var isEmpty: Bool { lines.count == idleLines }

    /// Joins the end of each key's line (`keys` without duplicates); `granted` when the member holds all its keys
    /// at once. Keep the ticket to leave; the member must stay alive until it has left.
    mutating func join(_ member: Member, keys: [String]) -> (ticket: Ticket, granted: Bool) {
        switch keys.count {
        case 0:
            return (.none, true)
        case 1:
            return join(member, key: keys[0])
        default:
            let counter = ExclusivityWaitCounter(notAtHead: 0)
            var joined: [ExclusivityLine] = []
            joined.reserveCapacity(keys.count)
            let opaque = Self.opaque(member)
            for key in keys {
                let line = self.line(for: key).takeUnretainedValue()
                let node = ExclusivityNode(member: opaque, counter: counter)
                if append(.node(node), to: line) > 1 { counter.notAtHead += 1 }
                joined.append(line)
            }
            return (.several(joined, counter), counter.notAtHead == 0)
        }
    }

    /// Joins the end of `key`'s line (`join(_:keys:)` with one key, without an array).
    mutating func join(_ member: Member, key: String) -> (ticket: Ticket, granted: Bool) {
        let line = self.line(for: key)
        member.nextInLine = nil
        let count = line._withUnsafeGuaranteedRef { append(.member(Unmanaged.fromOpaque(Self.opaque(member))), to: $0) }
        return (.one(line), count == 1)
    }

    /// Leaves every line of `ticket`; calls `granted` for each member that now holds all its keys (unretained: it is
    /// in its lines, so its owner keeps it alive).
    mutating func leave(_ member: Member, ticket: Ticket, granted: (Unmanaged<Member>) -> Void) {
        switch ticket {
        case .none:
            return
        case .one(let line):
            line._withUnsafeGuaranteedRef { leave(member, line: $0, granted: granted) }
        case .several(let joined, _):
            for line in joined { leave(member, line: line, granted: granted) }
        }
    }

    /// Whether the member of `ticket` holds every one of its keys.
    func holdsAllKeys(_ member: Member, ticket: Ticket) -> Bool {
        switch ticket {
        case .none: true
        case .one(let line): line.takeUnretainedValue().head.map { Self.opaque(of: $0) } == Self.opaque(member)
        case .several(_, let counter): counter.notAtHead == 0
        }
    }

    /// The member holding `key`, if any.
    func holder(of key: String) -> Member? {
        guard let head = lines[key]?.head else { return nil }
        return Self.member(Self.opaque(of: head))
    }

    /// Calls `body` with each member of each line (a member with several keys once per line).
    func forEachMember(_ body: (Member) -> Void) {
        for line in lines.values {
            Self.forEach(in: line) { body(Self.member($0)) }
        }
    }

    /// The members in `key`'s line, holder first.
    func members(of key: String) -> [Member] {
        guard let line = lines[key] else { return [] }
        var members: [Member] = []
        members.reserveCapacity(line.count)
        Self.forEach(in: line) { members.append(Self.member($0)) }
        return members
    }

    // MARK: Private

    /// A member as the lines hold it: unretained.
    private static func opaque(_ member: Member) -> UnsafeMutableRawPointer {
        Unmanaged.passUnretained(member).toOpaque()
    }

    /// The member behind an unretained reference (the owner keeps it alive while it is in a line).
    private static func member(_ opaque: UnsafeMutableRawPointer) -> Member {
        Unmanaged<Member>.fromOpaque(opaque).takeUnretainedValue()
    }

    /// The member of a place.
    private static func opaque(of link: ExclusivityLink) -> UnsafeMutableRawPointer {
        switch link {
        case .member(let member): member.toOpaque()
        case .node(let node): node.member
        }
    }

    /// The place after `link` in its line.
    private static func next(of link: ExclusivityLink) -> ExclusivityLink? {
        switch link {
        case .member(let member): Unmanaged<Member>.fromOpaque(member.toOpaque())._withUnsafeGuaranteedRef { $0.nextInLine }
        case .node(let node): node.next
        }
    }

    /// Links `next` after `link`.
    private static func setNext(of link: ExclusivityLink, to next: ExclusivityLink?) {
        switch link {
        case .member(let member):
            Unmanaged<Member>.fromOpaque(member.toOpaque())._withUnsafeGuaranteedRef { $0.nextInLine = next }
        case .node(let node): node.next = next
        }
    }

    /// Calls `body` with the member of each place in `line`, head first.
    private static func forEach(in line: ExclusivityLine, _ body: (UnsafeMutableRawPointer) -> Void) {
        var place = line.head
        while let link = place {
            body(opaque(of: link))
            place = next(of: link)
        }
    }

    /// Appends `link` (whose own next is empty) to `line`; returns the new number of places.
    private func append(_ link: ExclusivityLink, to line: ExclusivityLine) -> Int {
        if let tail = line.tail {
            Self.setNext(of: tail, to: link)
        } else {
            line.head = link
        }
        line.tail = link
        line.count += 1
        return line.count
    }

    /// The line of `key`, created empty and entered in the table if there is none.
    /// The line of `key`, created empty and entered in the table if there is none: looked up once, in place (the
    /// table's modify accessor), and returned unretained — the table holds it, and the caller uses it before the
    /// table changes again.
    private mutating func line(for key: String) -> Unmanaged<ExclusivityLine> {
        Self.line(in: &lines[key], idleLines: &idleLines)
    }

    private static func line(in slot: inout ExclusivityLine?, idleLines: inout Int) -> Unmanaged<ExclusivityLine> {
        guard let line = slot else {
            let line = ExclusivityLine()
            slot = line
            return Unmanaged.passUnretained(line)
        }
        if line.count == 0 { idleLines -= 1 }
        return Unmanaged.passUnretained(line)
    }

    private mutating func leave(_ member: Member, line: ExclusivityLine, granted: (Unmanaged<Member>) -> Void) {
        guard let head = line.head else { return }   // not in this line (a ticket always names the member's lines)
        let opaque = Self.opaque(member)
        if Self.opaque(of: head) == opaque {
            // The holder usually leaves: unlink the head, and grant the next if it now heads all its lines.
            let next = Self.next(of: head)
            Self.setNext(of: head, to: nil)
            line.head = next
            line.count -= 1
            if let next {
                switch next {
                case .member(let successor):
                    granted(Unmanaged.fromOpaque(successor.toOpaque()))
                case .node(let node):
                    node.counter.notAtHead -= 1
                    if node.counter.notAtHead == 0 { granted(Unmanaged.fromOpaque(node.member)) }
                }
            } else {
                line.tail = nil
            }
        } else {
            // A waiting member leaves from the middle (it was cancelled): unlink it, granting nobody.
            var previous = head
            while let link = Self.next(of: previous) {
                if Self.opaque(of: link) == opaque {
                    let after = Self.next(of: link)
                    Self.setNext(of: link, to: nil)
                    Self.setNext(of: previous, to: after)
                    if after == nil { line.tail = previous }
                    line.count -= 1
                    break
                }
                previous = link
            }
        }
        if line.count == 0 { lineBecameIdle(line) }
    }

    /// Keeps an emptied line for reuse, dropping every idle line when there are too many.
    private mutating func lineBecameIdle(_ line: ExclusivityLine) {
        idleLines += 1
        if idleLines > Self.idleLimit, idleLines * 2 > lines.count {
            // Except `line` itself: the caller is leaving it through a ticket, which holds it unretained.
            lines = lines.filter { $0.value.count > 0 || $0.value === line }
            idleLines = 1
        }
    }
}

/// What a member of exclusivity lines keeps for them: the link to the next place in its line while it is in
/// exactly one line (one key). Read and written only by the lines, under their owner's protection.
protocol ExclusivityLineMember: AnyObject {
    var nextInLine: ExclusivityLink? { get set }
}

/// One key's line: a singly linked list of places, threaded through its members (or their nodes).
final class ExclusivityLine {
    // @exclusivity(unchecked): like the whole structure, a line is only used by its owner (the queue, under its
    // lock), so the runtime's dynamic exclusivity bookkeeping on each access would only cost time.
    @exclusivity(unchecked) var head: ExclusivityLink?
    @exclusivity(unchecked) var tail: ExclusivityLink?
    @exclusivity(unchecked) var count = 0
}

/// A place in a line: a member with one key (linked on through its own `nextInLine`), or the node of a member with
/// several keys in this line (linked on through the node). Members are referred to unretained: see
/// `ExclusivityLines`. (`Unmanaged<AnyObject>` rather than a raw pointer: it leaves the enumeration 8 bytes, the
/// case in the reference's spare bits.)
enum ExclusivityLink: Equatable {
    case member(Unmanaged<AnyObject>)
    case node(ExclusivityNode)

    static func == (lhs: ExclusivityLink, rhs: ExclusivityLink) -> Bool {
        switch (lhs, rhs) {
        case (.member(let left), .member(let right)): left.toOpaque() == right.toOpaque()
        case (.node(let left), .node(let right)): left === right
        default: false
        }
    }
}

/// The place of a member with several keys in one of its lines.
final class ExclusivityNode {
    /// The member, unretained (see `ExclusivityLines`).
    let member: UnsafeMutableRawPointer
    /// Shared by the member's nodes in all its lines.
    let counter: ExclusivityWaitCounter
    @exclusivity(unchecked) var next: ExclusivityLink?   // unchecked: as for `ExclusivityLine`

    init(member: UnsafeMutableRawPointer, counter: ExclusivityWaitCounter) {
        self.member = member
        self.counter = counter
    }
}

/// For a member with several keys: in how many of its lines it is not at the head yet.
final class ExclusivityWaitCounter {
    @exclusivity(unchecked) var notAtHead: Int   // unchecked: as for `ExclusivityLine`

    init(notAtHead: Int) { self.notAtHead = notAtHead }
}

/// Where a member stands: in no line, in one line, or in several lines with a shared counter.
enum ExclusivityTicket {
    case none
    // Unmanaged (no reference counting of a line shared by every member, on the threads that join and leave):
    // the table of lines holds every line, and drops a line only when it is empty, so a line is alive while a
    // member holds a ticket naming it; a ticket is used once, to leave (the queue moves it out of the procedure
    // first).
    case one(Unmanaged<ExclusivityLine>)
    // `indirect`: a member with several keys is rare; boxed, the ticket every procedure stores is 8 bytes.
    indirect case several([ExclusivityLine], ExclusivityWaitCounter)
}

extension ExclusivityLines {
    // Conveniences that find a member's ticket by scanning its lines: for tests and rare paths only; the queue
    // keeps each procedure's ticket and uses `join` / `leave`.

    /// Joins the end of each key's line; returns `true` when the member holds all its keys at once.
    mutating func enqueue(_ member: Member, keys: [String]) -> Bool { join(member, keys: keys).granted }

    /// Leaves every line `member` is in (found by scanning); returns the members that now hold all their keys.
    mutating func remove(_ member: Member) -> [Member] {
        var granted: [Member] = []
        leave(member, ticket: ticket(of: member)) { granted.append($0.takeUnretainedValue()) }
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
        let opaque = Self.opaque(member)
        var joined: [ExclusivityLine] = []
        var counter: ExclusivityWaitCounter?
        for line in lines.values {
            var place = line.head
            while let link = place {
                if Self.opaque(of: link) == opaque {
                    joined.append(line)
                    if case .node(let node) = link { counter = node.counter }
                    break
                }
                place = Self.next(of: link)
            }
        }
        if let counter { return .several(joined, counter) }
        return joined.first.map { .one(Unmanaged.passUnretained($0)) } ?? .none
    }
}
