import Testing
@testable import OperationEngine

@Suite("Ready lines (pure)")
struct ReadyLinesTests {
    @Test("higher priority first, then first-come within a priority")
    func priorityThenFirstCome() {
        var ready = ReadyLines<String>()
        ready.insert("n1", priority: 0)
        ready.insert("l1", priority: -100)
        ready.insert("h1", priority: 100)
        ready.insert("n2", priority: 0)
        ready.insert("h2", priority: 100)
        ready.insert("m1", priority: 50)
        var order: [String] = []
        while let next = ready.popMax() { order.append(next) }
        #expect(order == ["h1", "h2", "m1", "n1", "n2", "l1"])
        #expect(ready.isEmpty)
    }

    @Test("a priority that empties and comes back keeps its place")
    func priorityComesBack() {
        var ready = ReadyLines<Int>()
        ready.insert(1, priority: 0)
        #expect(ready.popMax() == 1)
        #expect(ready.isEmpty)
        ready.insert(2, priority: 0)
        ready.insert(3, priority: 5)
        ready.insert(4, priority: 0)
        #expect(ready.popMax() == 3)
        #expect(ready.popMax() == 2)
        #expect(ready.popMax() == 4)
        #expect(ready.popMax() == nil)
    }
}

@Suite("Exclusivity tickets (pure)")
struct ExclusivityTicketTests {
    @Test("leaving with the kept ticket grants the next single-key member and empties the table")
    func singleKeyTickets() {
        var lines = ExclusivityLines<Int>()
        let first = lines.join(1, keys: ["a"])
        let second = lines.join(2, keys: ["a"])
        #expect(first.granted)
        #expect(!second.granted)
        #expect(lines.holdsAllKeys(1, ticket: first.ticket))
        #expect(!lines.holdsAllKeys(2, ticket: second.ticket))
        var granted: [Int] = []
        lines.leave(1, ticket: first.ticket) { granted.append($0) }
        #expect(granted == [2])
        #expect(lines.holdsAllKeys(2, ticket: second.ticket))
        granted = []
        lines.leave(2, ticket: second.ticket) { granted.append($0) }
        #expect(granted.isEmpty)
        #expect(lines.isEmpty)
    }

    @Test("a line stays first-come across its growth, and again after its storage was given back")
    func firstComeAcrossGrowth() {
        var lines = ExclusivityLines<Int>()
        for round in 0..<2 {
            // 300 members: the line's storage grows several times (and, idle after a burst, is given back).
            var tickets: [(Int, ExclusivityLines<Int>.Ticket)] = []
            for member in 0..<300 {
                let (ticket, granted) = lines.join(member, keys: ["k"])
                #expect(granted == (member == 0), "round \(round), member \(member)")
                tickets.append((member, ticket))
            }
            var order: [Int] = [0]
            for (member, ticket) in tickets {
                lines.leave(member, ticket: ticket) { order.append($0) }
            }
            #expect(order == Array(0..<300), "round \(round)")
            #expect(lines.isEmpty)
        }
    }

    @Test("a member with several keys is granted once, when it heads its last line")
    func severalKeysGrantedOnce() {
        var lines = ExclusivityLines<Int>()
        let a = lines.join(1, keys: ["a"])
        let b = lines.join(2, keys: ["b"])
        let both = lines.join(3, keys: ["a", "b"])
        #expect(!both.granted)
        var granted: [Int] = []
        lines.leave(2, ticket: b.ticket) { granted.append($0) }
        #expect(granted.isEmpty)
        lines.leave(1, ticket: a.ticket) { granted.append($0) }
        #expect(granted == [3])
        #expect(lines.holder(of: "a") == 3)
        #expect(lines.holder(of: "b") == 3)
    }

    @Test("a waiting member that leaves from the middle grants nobody and keeps the others' order")
    func leaveFromMiddleWithTicket() {
        var lines = ExclusivityLines<Int>()
        let first = lines.join(1, keys: ["k"])
        let middle = lines.join(2, keys: ["k"])
        _ = lines.join(3, keys: ["k"])
        var granted: [Int] = []
        lines.leave(2, ticket: middle.ticket) { granted.append($0) }
        #expect(granted.isEmpty)
        #expect(lines.members(of: "k") == [1, 3])
        lines.leave(1, ticket: first.ticket) { granted.append($0) }
        #expect(granted == [3])
    }
}
