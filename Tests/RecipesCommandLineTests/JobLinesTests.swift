import Foundation
import Locking
import Testing
@testable import RecipesCommandLine

@Suite("Lines of background jobs above the prompt")
struct JobLinesTests {
    @Test("two lines posted at once wake the editor twice; the second wake prints nothing and says so (no second prompt)")
    func secondWakeFindsNothing() {
        let console = CapturingConsole()
        let lines = JobLines(console: console)
        let wakes = Locked(0)
        lines.setWake { wakes.withLock { $0 += 1 } }
        lines.setMode(.reading)
        lines.post("[1] #6 Tea: done (version 1 on the server)")
        lines.post("[1] finished: sync: 1 done")
        #expect(wakes.withLock { $0 } == 2)
        #expect(lines.printPending(), "the first wake prints both")
        #expect(console.stdout == "\r\u{1B}[K[1] #6 Tea: done (version 1 on the server)\n[1] finished: sync: 1 done\n")
        console.reset()
        #expect(!lines.printPending(), "the second wake finds them printed: the prompt is not to be drawn again")
        #expect(console.stdout.isEmpty)
    }

    @Test("lines waiting when a command starts go out at once; none are lost or doubled")
    func directAfterReading() {
        let console = CapturingConsole()
        let lines = JobLines(console: console)
        lines.setWake {}
        lines.setMode(.reading)
        lines.post("[1] a")
        lines.setMode(.direct)
        #expect(console.stdout == "[1] a\n")
        #expect(!lines.printPending())
        lines.post("[1] b")
        #expect(console.stdout == "[1] a\n[1] b\n")
    }
}
