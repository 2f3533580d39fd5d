import DequeModule

/// The ready procedures waiting for a slot: higher priority first, then first-come.
///
/// One first-come line per priority in use, kept sorted by priority (there are usually one to three), so that
/// pushing and popping cost O(1) in the common case instead of a heap's O(log n) with its comparisons. A plain
/// value with no locking (the queue guards it), tested directly.
struct ReadyLines<Element> {
    /// The lines in increasing priority; empty lines are removed.
    private var lines: [(priority: Int, elements: Deque<Element>)] = []

    /// Whether nothing is waiting.
    var isEmpty: Bool { lines.isEmpty }

    /// Appends `element` to the line of `priority`.
    mutating func insert(_ element: Element, priority: Int) {
        var index = lines.count
        while index > 0, lines[index - 1].priority >= priority {
            if lines[index - 1].priority == priority {
                lines[index - 1].elements.append(element)
                return
            }
            index -= 1
        }
        lines.insert((priority, [element]), at: index)
    }

    /// Removes and returns the first element of the highest-priority line.
    mutating func popMax() -> Element? {
        guard !lines.isEmpty else { return nil }
        let last = lines.count - 1
        let element = lines[last].elements.removeFirst()
        if lines[last].elements.isEmpty { lines.removeLast() }
        return element
    }
}
