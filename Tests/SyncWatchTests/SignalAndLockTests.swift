import Foundation
import RecipeStore
import RecipesTestSupport
@testable import SyncWatch
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite("Signals arrive as bytes on a pipe; one watcher lock per home, which cannot go stale", .serialized)
struct SignalAndLockTests {
    @Test("a signal sent to the process makes the pipe readable with its number; the previous handler comes back after")
    func signalPipe() async throws {
        // SIGUSR2, ignored around the test, so that a signal arriving outside it cannot end the test process.
        var ignore = sigaction()
        ignore.__sigaction_handler.sa_handler = SIG_IGN
        var saved = sigaction()
        sigaction(SIGUSR2, &ignore, &saved)
        defer { sigaction(SIGUSR2, &saved, nil) }
        do {
            let pipe = try SignalPipe([SIGUSR2])
            #expect(!isReadable(pipe.descriptor))
            kill(getpid(), SIGUSR2)
            #expect(await becomesReadable(pipe.descriptor, within: 60))
            kill(getpid(), SIGUSR2)
            try await Task.sleep(for: .milliseconds(100))
            #expect(pipe.drain() == [SIGUSR2, SIGUSR2])
            #expect(throws: WatchError.self, "a second pipe at once") { try SignalPipe([SIGUSR1]) }
        }
        var now = sigaction()
        sigaction(SIGUSR2, nil, &now)
        #expect(unsafeBitCast(now.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self))
    }

    @Test("a second lock of the same home is refused, naming the holder's pid; released, it can be taken again")
    func secondLockRefused() throws {
        let folder = TemporaryDirectory()
        try folder.home.createDirectories()
        var first: WatchLock? = try WatchLock(home: folder.home)
        #expect(WatchLock.runningWatcher(of: folder.home) == getpid())
        let error = #expect(throws: WatchError.self) { try WatchLock(home: folder.home) }
        #expect(error?.kind == .alreadyWatching(home: folder.homePath, processID: getpid()))
        #expect(error?.errorDescription?.contains("(pid \(getpid())) is already watching \(folder.homePath)") == true)
        withExtendedLifetime(first) {}
        first = nil
        #expect(WatchLock.runningWatcher(of: folder.home) == nil)
        _ = try WatchLock(home: folder.home)
    }

    @Test("a holder killed with SIGKILL leaves no lock behind")
    func killedHolderLeavesNoLock() async throws {
        let folder = TemporaryDirectory()
        try folder.home.createDirectories()
        // Another process takes the lock and says so (one process: nothing else inherits the lock).
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        holder.arguments = ["-c", """
            import fcntl, sys, time
            f = open(sys.argv[1], "a"); fcntl.flock(f, fcntl.LOCK_EX); print("held", flush=True); time.sleep(60)
            """, folder.home.watchLockURL.path]
        let output = Pipe()
        holder.standardOutput = output
        try holder.run()
        defer { if holder.isRunning { kill(holder.processIdentifier, SIGKILL); holder.waitUntilExit() } }
        let reading = output.fileHandleForReading
        let said = await offThePool { String(decoding: reading.availableData, as: UTF8.self) }
        #expect(said.hasPrefix("held"))
        let home = folder.home
        let refused = await offThePool { Result { () throws(WatchError) in _ = try WatchLock(home: home) } }
        #expect(throws: WatchError.self) { try refused.get() }
        kill(holder.processIdentifier, SIGKILL)
        await offThePool { holder.waitUntilExit() }
        _ = try WatchLock(home: folder.home)
    }
}
