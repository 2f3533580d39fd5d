import NIOCore
import Testing
@testable import ReferenceServer

@Suite("Connection timeouts as a state machine")
struct ConnectionTimeoutsTests {
    /// One event of a connection's life, at a time in milliseconds after it opened.
    enum Event {
        case head, body(Int), end, answerEnd, quiesce
        /// Data arrived / the server asks for more (the read cycle; without them the server always waits).
        case arrived, read
        /// Ask what to do at this moment.
        case expire(ConnectionTimeouts.Action)
    }

    /// Idle 1000 ms, body periods of 500 ms at 1 KiB/s (512 bytes a period), drain 300 ms.
    static let timeouts = ServerTimeouts(idle: .milliseconds(1000), body: .milliseconds(500), minimumBodyRate: 1024, drain: .milliseconds(300))

    /// Plays `events` and checks each `expire` answer; returns the final state.
    @discardableResult
    func play(_ events: [(Int64, Event)], sourceLocation: SourceLocation = #_sourceLocation) -> ConnectionTimeouts {
        let origin = NIODeadline.uptimeNanoseconds(1_000_000_000)
        var state = ConnectionTimeouts(Self.timeouts, now: origin)
        for (milliseconds, event) in events {
            let now = origin + .milliseconds(milliseconds)
            switch event {
            case .head: state.requestHead(now: now)
            case .body(let count): state.bodyBytes(count, now: now)
            case .end: state.requestEnd(now: now)
            case .answerEnd: state.answerEnd(now: now)
            case .quiesce: state.quiesce(now: now)
            case .arrived: state.dataArrived(now: now)
            case .read: state.readRequested(now: now)
            case .expire(let expected):
                #expect(state.expire(now: now) == expected, "at \(milliseconds) ms", sourceLocation: sourceLocation)
            }
        }
        return state
    }

    @Test("an idle connection closes once idle has passed since it opened or since its last answer, not before")
    func idle() {
        play([(999, .expire(.none)), (1000, .expire(.close(.idle)))])
        play([(200, .head), (210, .end), (900, .answerEnd), (1800, .expire(.none)), (1900, .expire(.close(.idle)))])
    }

    @Test("while an answer is being prepared nothing times out, however long it takes (long polls, stalls)")
    func handling() {
        let state = play([(0, .head), (1, .end), (60_000, .expire(.none))])
        #expect(state.deadline == nil)
    }

    @Test("a body that stops sending ends one body period after its last byte, or at the end of a period that brought too little")
    func stalledBody() {
        play([(0, .head), (100, .body(600)), (500, .expire(.none)), (599, .expire(.none)), (600, .expire(.endBody)), (700, .expire(.none))])
        play([(0, .head), (100, .body(3)), (499, .expire(.none)), (500, .expire(.endBody))])
    }

    @Test("a body that trickles below the rate ends at the end of its period; a steady one runs on period after period")
    func trickle() {
        play([(0, .head), (100, .body(100)), (200, .body(100)), (300, .body(100)), (400, .body(100)), (500, .expire(.endBody))])
        play([(0, .head), (250, .body(512)), (500, .expire(.none)), (750, .body(512)), (1000, .expire(.none)),
              (1250, .body(600)), (1500, .expire(.none)), (1600, .end), (1700, .answerEnd), (2699, .expire(.none))])
    }

    @Test("while the server does not ask for more data (its route is busy), the body clocks stand still and move on by that time")
    func backpressure() {
        let state = play([(0, .head), (100, .arrived), (100, .body(600)), (200, .expire(.none)), (5000, .expire(.none))])
        #expect(state.deadline == nil)
        play([(0, .head), (100, .arrived), (100, .body(600)), (2000, .read), (2399, .expire(.none)), (2400, .expire(.none)),
              (2499, .expire(.none)), (2500, .expire(.endBody))])
    }

    @Test("a rate of 0 only asks for one byte per period")
    func anyByte() {
        let timeouts = ServerTimeouts(idle: .seconds(1), body: .milliseconds(500), minimumBodyRate: 0, drain: .seconds(1))
        #expect(timeouts.minimumBytesPerBodyPeriod == 1)
        #expect(Self.timeouts.minimumBytesPerBodyPeriod == 512)
        #expect(ServerTimeouts.standard.minimumBytesPerBodyPeriod == 30 * 1024)
    }

    @Test("after quiesce the connection closes once drain has passed, even with an answer in progress")
    func drain() {
        play([(0, .head), (1, .end), (100, .quiesce), (399, .expire(.none)), (400, .expire(.close(.drained)))])
    }

    @Test("the deadline is the earliest of drain, the body's two limits and idle")
    func deadlines() {
        let origin = NIODeadline.uptimeNanoseconds(1_000_000_000)
        var state = ConnectionTimeouts(Self.timeouts, now: origin)
        #expect(state.deadline == origin + .milliseconds(1000))
        state.requestHead(now: origin + .milliseconds(100))
        #expect(state.deadline == origin + .milliseconds(600))
        state.quiesce(now: origin + .milliseconds(200))
        #expect(state.deadline == origin + .milliseconds(500))
    }
}
