import DequeModule

/// The lines of mutual exclusion: per key, a first-come line of procedure identifiers; the head holds the key.
///
/// A plain value with no I/O or locking (the queue guards it), so it is tested directly. A member joins every one
/// of its keys' lines in one step, so all lines agree on one order and several keys never deadlock.
struct ExclusivityLines<ID: Hashable> {
    private var lines: [String: Deque<ID>] = [:]
    private var keysOf: [ID: [String]] = [:]
    private var notAtHead: [ID: Int] = [:]

    /// Whether no member is in any line.
    var isEmpty: Bool { keysOf.isEmpty }

    /// Joins the end of each key's line; returns `true` when the member holds all its keys at once.
    mutating func enqueue(_ id: ID, keys: [String]) -> Bool {
        guard !keys.isEmpty else { return true }
        keysOf[id] = keys
        var waiting = 0
        for key in keys {
            lines[key, default: []].append(id)
            if lines[key]!.count > 1 { waiting += 1 }
        }
        if waiting > 0 { notAtHead[id] = waiting }
        return waiting == 0
    }

    /// Leaves every line; returns the members that now hold all their keys.
    mutating func remove(_ id: ID) -> [ID] {
        guard let keys = keysOf.removeValue(forKey: id) else { return [] }
        notAtHead.removeValue(forKey: id)
        var granted: [ID] = []
        for key in keys {
            guard var line = lines.removeValue(forKey: key) else { continue }
            if line.first == id {
                line.removeFirst()
                if let next = line.first, let count = notAtHead[next] {
                    if count == 1 {
                        notAtHead.removeValue(forKey: next)
                        granted.append(next)
                    } else {
                        notAtHead[next] = count - 1
                    }
                }
            } else if let index = line.firstIndex(of: id) {
                line.remove(at: index)
            }
            if !line.isEmpty { lines[key] = line }
        }
        return granted
    }

    /// The member holding `key`, if any.
    func holder(of key: String) -> ID? { lines[key]?.first }

    /// The members in `key`'s line, holder first.
    func members(of key: String) -> [ID] {
        guard let line = lines[key] else { return [] }
        return Array(line)
    }

    /// Whether `id` holds every one of its keys.
    func holdsAllKeys(_ id: ID) -> Bool { keysOf[id] != nil && notAtHead[id] == nil }
}
