import DequeModule

/// The ready procedures waiting for a slot: higher priority first, then first-come.
///
/// One first-come line per priority in use, kept sorted by priority (there are usually one to three), so that
/// pushing and popping cost O(1) in the common case instead of a heap's O(log n) with its comparisons. A plain
/// value with no locking (the queue guards it), tested directly.
struct ReadyLines<Element> {
    /// The lines in increasing priority. A line that empties is kept, with its storage, while there are few lines:
    /// a queue that keeps up with its work empties its line at almost every step, and would otherwise allocate a
    /// new one at the next.
    private var lines: [(priority: Int, elements: Deque<Element>)] = []
    /// The number of elements in all lines.
    private var count = 0
    /// The most lines kept when some are empty.
    private static var keptLines: Int { 8 }

    /// Whether nothing is waiting.
    var isEmpty: Bool { count == 0 }

    /// Appends `element` to the line of `priority`.
    mutating func insert(_ element: Element, priority: Int) {
        count += 1
        var index = lines.count
        while index > 0, lines[index - 1].priority >= priority {
            if lines[index - 1].priority == priority {
                lines[index - 1].elements.append(element)
                return
            }
            index -= 1
        }
        if lines.count >= Self.keptLines { lines.removeAll { $0.elements.isEmpty } }
        index = lines.firstIndex { $0.priority > priority } ?? lines.count
        lines.insert((priority, [element]), at: index)
    }

    /// Removes and returns the first element of the highest-priority line that has one.
    mutating func popMax() -> Element? {
        guard count > 0 else { return nil }
        var index = lines.count - 1
        while lines[index].elements.isEmpty { index -= 1 }
        count -= 1
        return lines[index].elements.removeFirst()
    }
}
