/// The transfers waiting for a slot, in two lanes: the requests that go ahead (small ones whose answers many callers
/// wait for: a batch of recipe writes, a check of many images) start before every other waiting transfer, each lane
/// first come, first served. Without it, a batch queued behind a window of photo uploads waits for all of them, and
/// the chains whose answers it carries hold their places meanwhile.
struct WaitingLine<Element> {
    private var ahead: [Element] = []
    private var rest: [Element] = []

    /// Whether nothing waits.
    var isEmpty: Bool { ahead.isEmpty && rest.isEmpty }

    /// Every waiting element, in the order they would start.
    var all: [Element] { ahead + rest }

    /// `element` waits at the end of its lane.
    mutating func append(_ element: Element, ahead goesAhead: Bool) {
        if goesAhead { ahead.append(element) } else { rest.append(element) }
    }

    /// The next to start: the first of the lane ahead, else the first of the rest.
    mutating func popFirst() -> Element? {
        if !ahead.isEmpty { return ahead.removeFirst() }
        if !rest.isEmpty { return rest.removeFirst() }
        return nil
    }

    /// Takes out the first element matching `matches`, wherever it waits.
    mutating func remove(where matches: (Element) -> Bool) -> Element? {
        if let index = ahead.firstIndex(where: matches) { return ahead.remove(at: index) }
        if let index = rest.firstIndex(where: matches) { return rest.remove(at: index) }
        return nil
    }

    /// Takes out everything, in the order they would have started.
    mutating func removeAll() -> [Element] {
        defer {
            ahead.removeAll()
            rest.removeAll()
        }
        return all
    }
}
