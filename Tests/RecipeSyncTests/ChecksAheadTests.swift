import Foundation
import Locking
import Testing
@testable import RecipeSync

/// The image checks asked ahead for a claimed batch: a chain finds the answer, or joins the ask on its way; an answer
/// is taken once; a failed ask, an image not asked about and a cancelled wait answer nothing (the chain asks itself).
@Suite("ChecksAhead: image checks asked for a claimed batch before its chains run")
struct ChecksAheadTests {
    /// An ask the test answers when it chooses, recording what was asked.
    final class HeldAsk: Sendable {
        let asked = Locked<[[String]]>([])
        private let gate = AsyncStream<[Bool]?>.makeStream()

        var ask: @Sendable ([String]) async -> [Bool]? {
            { [self] images in
                asked.withLock { $0.append(images) }
                for await answer in gate.stream { return answer }
                return nil
            }
        }

        func answer(_ answer: [Bool]?) { gate.continuation.yield(answer) }
    }

    @Test("each image gets its own answer, taken once: the next take (a retry of the step) answers nothing")
    func takenOnce() async {
        let ahead = ChecksAhead()
        let held = HeldAsk()
        ahead.ask(["a", "b"], with: held.ask)
        held.answer([true, false])
        #expect(await ahead.take("a") == true)
        #expect(await ahead.take("b") == false)
        #expect(await ahead.take("a") == nil, "taken once: a retry asks the server again")
        #expect(held.asked.withLock { $0 } == [["a", "b"]])
    }

    @Test("a chain that asks while the ask is on its way waits for it and gets its own image's answer")
    func joinsTheAsk() async {
        let ahead = ChecksAhead()
        let held = HeldAsk()
        ahead.ask(["a", "b", "c"], with: held.ask)
        async let b = ahead.take("b")
        async let c = ahead.take("c")
        #expect(await eventually { held.asked.withLock { $0.count } == 1 })
        held.answer([false, true, false])
        #expect(await b == true)
        #expect(await c == false)
    }

    @Test("images asked already are not asked again; a failed ask or an answer of the wrong length answers nothing")
    func failuresAnswerNothing() async {
        let cases: [(name: String, answer: [Bool]?)] = [("no answer", nil), ("wrong length", [true])]
        for row in cases {
            let ahead = ChecksAhead()
            let held = HeldAsk()
            ahead.ask(["a", "b"], with: held.ask)
            ahead.ask(["b"], with: held.ask)
            async let a = ahead.take("a")
            #expect(await eventually { held.asked.withLock { $0.count } == 1 }, "\(row.name)")
            held.answer(row.answer)
            #expect(await a == nil, "\(row.name): the chain asks as it would have")
            #expect(await ahead.take("b") == nil, "\(row.name)")
            #expect(held.asked.withLock { $0 } == [["a", "b"]], "\(row.name): b was not asked twice")
        }
    }

    @Test("an image not asked about answers nothing at once")
    func notAsked() async {
        #expect(await ChecksAhead().take("z") == nil)
    }

    @Test("a chain cancelled while it waits answers nothing at once; the others still get theirs")
    func cancelledWait() async {
        let ahead = ChecksAhead()
        let held = HeldAsk()
        ahead.ask(["a", "b"], with: held.ask)
        let cancelled = Task { await ahead.take("a") }
        async let b = ahead.take("b")
        #expect(await eventually { held.asked.withLock { $0.count } == 1 })
        cancelled.cancel()
        #expect(await cancelled.value == nil)
        held.answer([true, true])
        #expect(await b == true)
    }
}

/// Polls `condition` every 5 ms for up to a minute.
private func eventually(_ condition: @Sendable () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(60)
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return await condition()
}
