import Testing
@testable import RecipeModels

@Suite("Cook mode: moving between steps and counting down step timers, with the time given")
struct CookSessionTests {
    static let bake = StepDuration(shortest: 1500, longest: 1500, text: "25 minutes")
    static let roast = StepDuration(shortest: 600, longest: 720, text: "10-12 minutes")
    static let rest = StepDuration(shortest: 300, longest: 300, text: "5 minutes")

    /// Three steps: the first names no time, the second two times, the third a range.
    static func session() -> CookSession { CookSession(times: [[], [bake, rest], [roast]]) }

    @Test("keys move through the ingredients, the steps and the ingredients over a step", arguments: [
        ([CookSession.Key](), CookSession.Screen.ingredients),
        ([.next], .step(0)),
        ([.next, .next, .next], .step(2)),
        ([.next, .next, .next, .next], .step(2)),
        ([.next, .back], .ingredients),
        ([.back], .ingredients),
        ([.next, .next, .back], .step(0)),
        ([.next, .next, .ingredients], .allIngredients(over: 1)),
        ([.next, .next, .ingredients, .ingredients], .step(1)),
        ([.next, .next, .ingredients, .next], .step(1)),
        ([.next, .next, .ingredients, .back], .step(1)),
        ([.ingredients], .ingredients),
    ] as [([CookSession.Key], CookSession.Screen)])
    func moves(_ keys: [CookSession.Key], _ screen: CookSession.Screen) {
        var session = Self.session()
        for key in keys { #expect(session.handle(.key(key), at: .zero) == [.redraw]) }
        #expect(session.screen == screen)
    }

    @Test("→ on the last step says so; a recipe without steps stays on its ingredients and says why")
    func ends() {
        var session = Self.session()
        for _ in 0..<4 { _ = session.handle(.key(.next), at: .zero) }
        #expect(session.notices == [.lastStep])
        var empty = CookSession(times: [])
        _ = empty.handle(.key(.next), at: .zero)
        #expect(empty.screen == .ingredients && empty.notices == [.noSteps])
    }

    @Test("t starts the step's first time, then its next; a step without a time and the ingredients say why")
    func startsTimers() {
        var session = Self.session()
        _ = session.handle(.key(.timer), at: .zero)
        #expect(session.notices == [.timerNeedsStep])
        _ = session.handle(.key(.next), at: .zero)
        _ = session.handle(.key(.timer), at: .zero)
        #expect(session.notices == [.noTime(step: 0)])
        _ = session.handle(.key(.next), at: .seconds(10))
        _ = session.handle(.key(.timer), at: .seconds(10))
        let first = CookTimers.Timer(step: 1, part: 0, duration: Self.bake, endsAt: .seconds(1510))
        #expect(session.notices == [.timerStarted(first)])
        _ = session.handle(.key(.timer), at: .seconds(11))
        let second = CookTimers.Timer(step: 1, part: 1, duration: Self.rest, endsAt: .seconds(311))
        #expect(session.notices == [.timerStarted(second)])
        _ = session.handle(.key(.timer), at: .seconds(12))
        #expect(session.notices == [.timerRunning(first)])
        #expect(session.timers.running == [first, second])
    }

    @Test("the countdown: seconds left rounded up, redrawn each tick while a timer runs, the bell and a notice at its end, kept while moving")
    func countsDown() {
        var session = Self.session()
        _ = session.handle(.key(.next), at: .zero)
        _ = session.handle(.key(.next), at: .zero)
        _ = session.handle(.key(.next), at: .zero)
        _ = session.handle(.key(.timer), at: .zero)
        let timer = session.timers.running[0]
        #expect(timer.secondsLeft(at: .zero) == 720)
        #expect(timer.secondsLeft(at: .milliseconds(200)) == 720)
        #expect(timer.secondsLeft(at: .seconds(1)) == 719)
        #expect(timer.checkFrom == 120, "a range of 10-12 minutes: look from 2 minutes left")
        #expect(session.timers.nextChange(after: .milliseconds(200)) == .seconds(1))
        #expect(session.handle(.tick, at: .seconds(100)) == [.redraw])
        _ = session.handle(.key(.back), at: .seconds(200))
        #expect(session.screen == .step(1) && session.timers.running == [timer], "the timer runs on while the cook moves")
        #expect(session.handle(.tick, at: .seconds(720)) == [.bell, .redraw])
        #expect(session.notices == [.timerDone(timer)] && session.timers.running.isEmpty)
        #expect(session.handle(.tick, at: .seconds(721)) == [], "nothing to redraw once no timer runs")
        #expect(session.timers.nextChange(after: .seconds(721)) == nil)
        _ = session.handle(.key(.next), at: .seconds(722))
        #expect(session.notices.isEmpty, "a notice lasts until the next key")
    }

    @Test("a timer that ended between ticks rings with the next key")
    func endsBeforeKey() {
        var session = Self.session()
        _ = session.handle(.key(.next), at: .zero)
        _ = session.handle(.key(.next), at: .zero)
        _ = session.handle(.key(.timer), at: .zero)
        #expect(session.handle(.key(.next), at: .seconds(1600)) == [.bell, .redraw])
        #expect(session.notices.contains { if case .timerDone(let timer) = $0 { timer.step == 1 } else { false } })
    }

    @Test("q quits at once without timers; with one running it asks, and a second q quits")
    func quits() {
        var idle = Self.session()
        #expect(idle.handle(.key(.quit), at: .zero) == [.quit])
        var session = Self.session()
        _ = session.handle(.key(.next), at: .zero)
        _ = session.handle(.key(.next), at: .zero)
        _ = session.handle(.key(.timer), at: .zero)
        #expect(session.handle(.key(.quit), at: .seconds(1)) == [.redraw])
        #expect(session.notices == [.quitWithTimers(count: 1)])
        #expect(session.handle(.key(.quit), at: .seconds(2)) == [.quit])
        var changedMind = Self.session()
        _ = changedMind.handle(.key(.next), at: .zero)
        _ = changedMind.handle(.key(.next), at: .zero)
        _ = changedMind.handle(.key(.timer), at: .zero)
        _ = changedMind.handle(.key(.quit), at: .seconds(1))
        _ = changedMind.handle(.key(.next), at: .seconds(2))
        #expect(changedMind.handle(.key(.quit), at: .seconds(3)) == [.redraw], "another key in between asks again")
    }
}
