import Testing
@testable import Transport

/// The transfers waiting for a slot: the lane ahead (batches many callers wait for) starts first, each lane in arrival
/// order, and a cancelled transfer leaves whichever lane it waits in.
@Suite("WaitingLine: requests that go ahead start before the uploads already waiting")
struct WaitingLineTests {
    @Test("from a table of arrivals: the order they start in")
    func order() {
        let cases: [(arrivals: [(String, ahead: Bool)], starts: [String])] = [
            ([], []),
            ([("p1", false), ("p2", false), ("p3", false)], ["p1", "p2", "p3"]),
            ([("p1", false), ("p2", false), ("batch", true)], ["batch", "p1", "p2"]),
            ([("p1", false), ("b1", true), ("p2", false), ("b2", true)], ["b1", "b2", "p1", "p2"]),
            ([("b1", true), ("b2", true)], ["b1", "b2"]),
        ]
        for (index, row) in cases.enumerated() {
            var line = WaitingLine<String>()
            for (name, ahead) in row.arrivals { line.append(name, ahead: ahead) }
            #expect(line.all == row.starts, "case \(index): all")
            var started: [String] = []
            while let next = line.popFirst() { started.append(next) }
            #expect(started == row.starts, "case \(index)")
            #expect(line.isEmpty)
        }
    }

    @Test("a transfer is taken out of either lane; removing everything empties both, in start order")
    func removal() {
        var line = WaitingLine<String>()
        for (name, ahead) in [("p1", false), ("b1", true), ("p2", false), ("b2", true)] { line.append(name, ahead: ahead) }
        #expect(line.remove { $0 == "b1" } == "b1")
        #expect(line.remove { $0 == "p2" } == "p2")
        #expect(line.remove { $0 == "zz" } == nil)
        #expect(line.removeAll() == ["b2", "p1"])
        #expect(line.isEmpty && line.popFirst() == nil)
    }
}
