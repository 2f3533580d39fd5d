import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Ctrl-C during a sync: the first SIGINT stops the run cleanly (transfers aborted, leases released, recipes left
/// for a later run); a second one ends the process at once with status 130.
///
/// The handler only bumps an atomic counter (async-signal-safe); a task polls it, because Swift's concurrency
/// threads block every signal and the handler may run on any thread that does not.
enum InterruptSignal {
    /// SIGINTs received while a handler was installed.
    static let received = Atomic<Int>(0)

    /// Runs `body` with SIGINT routed to `onInterrupt`, restoring the previous handler afterwards. With
    /// `exitOnSecond` false (the REPL), a second Ctrl-C is only counted.
    static func whileRunning<T: Sendable>(
        exitOnSecond: Bool = true, onInterrupt: @escaping @Sendable () -> Void, _ body: () async throws -> T
    ) async throws -> T {
        received.store(0, ordering: .sequentiallyConsistent)
        var action = sigaction()
        if exitOnSecond {
            action.__sigaction_handler.sa_handler = { _ in
                if InterruptSignal.received.add(1, ordering: .sequentiallyConsistent).newValue >= 2 { _exit(130) }
            }
        } else {
            action.__sigaction_handler.sa_handler = { _ in InterruptSignal.received.add(1, ordering: .sequentiallyConsistent) }
        }
        sigemptyset(&action.sa_mask)
        var previous = sigaction()
        sigaction(SIGINT, &action, &previous)
        defer { sigaction(SIGINT, &previous, nil) }
        let watcher = Task {
            while !Task.isCancelled {
                if received.load(ordering: .sequentiallyConsistent) > 0 {
                    onInterrupt()
                    return
                }
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
        let outcome: Result<T, any Error>
        do {
            outcome = .success(try await body())
        } catch {
            outcome = .failure(error)
        }
        // Wait for the watcher to end: it holds `onInterrupt` (and whatever that holds, such as the sync run and its
        // database), and a command that exits right after would otherwise leave the database unclosed (its WAL
        // file not checkpointed and removed).
        watcher.cancel()
        await watcher.value
        return try outcome.get()
    }
}
