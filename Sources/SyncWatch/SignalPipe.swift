import Foundation
import Synchronization
import SystemFiles
#if canImport(Glibc)
import Glibc
#endif

/// Signals as bytes on a pipe (the self-pipe trick): the handler writes the signal's number to the pipe, which is
/// async-signal-safe, and the watcher reads them where it waits for everything else, with no thread polling a flag.
///
/// One at a time per process (the handler finds the pipe through a global); the previous handlers come back when it
/// is released. Handlers run with `SA_RESTART`, so that the calls they interrupt elsewhere (SQLite's, libcurl's) go on.
public final class SignalPipe: @unchecked Sendable {
    // @unchecked Sendable: `previous` (whose `sigaction` values hold a C union and are not Sendable) is written in
    // `init` and read in `deinit` only; the descriptors are constants, and reading the pipe is the caller's thread's.
    /// The read end (non-blocking), to wait on with `poll(2)`.
    public let descriptor: Int32
    /// The write end, which the handler writes to.
    private let writeEnd: Int32
    /// The signals handled, with the actions they had before.
    private let previous: [(Int32, sigaction)]

    /// The write end the handler uses; -1 when no pipe is installed.
    private static let target = Atomic<Int32>(-1)

    /// Routes `signals` to the pipe; throws when a pipe is installed already or one cannot be made.
    public init(_ signals: [Int32]) throws(WatchError) {
        let ends = try nonBlockingPipe()
        guard Self.target.compareExchange(expected: -1, desired: ends.write, ordering: .sequentiallyConsistent).exchanged else {
            close(ends.read)
            close(ends.write)
            throw WatchError(.system(ErrnoError(EBUSY, .create, path: "the signal pipe")))
        }
        descriptor = ends.read
        writeEnd = ends.write
        var previous: [(Int32, sigaction)] = []
        for signal in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                let saved = errno
                var byte = UInt8(truncatingIfNeeded: number)
                let target = SignalPipe.target.load(ordering: .sequentiallyConsistent)
                if target >= 0 { _ = write(target, &byte, 1) }
                errno = saved
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            var old = sigaction()
            sigaction(signal, &action, &old)
            previous.append((signal, old))
        }
        self.previous = previous
    }

    deinit {
        for (signal, old) in previous {
            var restored = old
            sigaction(signal, &restored, nil)
        }
        Self.target.store(-1, ordering: .sequentiallyConsistent)
        close(writeEnd)
        close(descriptor)
    }

    /// The signals received since the last call, in order.
    public func drain() -> [Int32] {
        var received: [Int32] = []
        var buffer = [UInt8](repeating: 0, count: 64)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                received += buffer[0..<count].map { Int32($0) }
                continue
            }
            if count < 0, errno == EINTR { continue }
            return received
        }
    }
}
