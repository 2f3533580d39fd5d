import Foundation
import Synchronization

/// The transfer loops still tearing libcurl's handles down, which the process's exit waits for.
///
/// `curl_global_init` makes OpenSSL register exit handlers that free its state. A client released just before the
/// process exits shuts its loop down, and the loop's thread then closes its TLS connections (`curl_multi_cleanup`):
/// when `exit` ran those handlers meanwhile, the process crashed after printing its answer (exit 139 of a `recipes
/// sync --background` to `https://` on a plain-HTTP server, about one run in 300 on a busy machine). The wait runs as
/// an exit handler registered after libcurl's initialisation, so before OpenSSL's (exit handlers run in reverse
/// order), and never longer than `longestWait`: a loop stuck in a call of libcurl does not hold the exit up for good.
enum TeardownsAtExit {
    /// Loops shut down whose thread has not freed its handles yet.
    private static let pending = Atomic<Int>(0)
    /// The longest the exit waits for them.
    static let longestWait: Duration = .seconds(2)

    /// A loop was shut down; its thread will free its handles.
    static func begin() { pending.add(1, ordering: .sequentiallyConsistent) }

    /// A loop's thread freed its handles.
    static func end() { pending.subtract(1, ordering: .sequentiallyConsistent) }

    /// Loops still tearing down.
    static var count: Int { pending.load(ordering: .sequentiallyConsistent) }

    /// Registers the wait as an exit handler; called once, right after `curl_global_init`.
    static func registerExitHandler() {
        atexit { TeardownsAtExit.waitForAll() }
    }

    /// Waits, polling every millisecond, until no loop is tearing down or `longestWait` has passed.
    static func waitForAll() {
        let deadline = ContinuousClock.now + longestWait
        while count > 0 && ContinuousClock.now < deadline { usleep(1_000) }
    }
}
