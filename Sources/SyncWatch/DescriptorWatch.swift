import Foundation
import Synchronization
import SystemFiles
#if canImport(Glibc)
import Glibc
#endif

/// A thread asleep in `poll(2)` on a few descriptors, with no timeout: it wakes only when one of them is readable,
/// and calls that descriptor's handler (which reads what is waiting). `stop` wakes it through a pipe of its own and
/// waits for it to end, after which the descriptors may be closed.
public final class DescriptorWatch: Sendable {
    /// One descriptor and what to do when it is readable (on the watch's thread; keep it short).
    public struct Source: Sendable {
        /// The descriptor, non-blocking.
        public var descriptor: Int32
        /// Reads what is waiting on it.
        public var readable: @Sendable () -> Void

        /// Creates a source.
        public init(descriptor: Int32, readable: @escaping @Sendable () -> Void) {
            self.descriptor = descriptor
            self.readable = readable
        }
    }

    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let ended = DispatchSemaphore(value: 0)
    private let stopped = Atomic<Bool>(false)

    /// Starts the thread watching `sources`.
    public init(_ sources: [Source]) throws(WatchError) {
        (wakeRead, wakeWrite) = try nonBlockingPipe()
        let wake = wakeRead, ended = self.ended
        let thread = Thread {
            Self.watch(sources, wake: wake)
            ended.signal()
        }
        thread.name = "recipes-watch-descriptors"
        thread.start()
    }

    /// Ends the thread and waits for it; harmless twice.
    public func stop() {
        guard !stopped.exchange(true, ordering: .sequentiallyConsistent) else { return }
        var byte: UInt8 = 1
        guard write(wakeWrite, &byte, 1) == 1 else { return }
        ended.wait()
    }

    deinit {
        stop()
        close(wakeRead)
        close(wakeWrite)
    }

    /// The thread's loop: sleeps until a descriptor is readable, hands it to its handler, until `wake` is.
    private static func watch(_ sources: [Source], wake: Int32) {
        var descriptors = [pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
            + sources.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
        while true {
            let ready = poll(&descriptors, nfds_t(descriptors.count), -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return
            }
            if descriptors[0].revents != 0 { return }
            for index in 1..<descriptors.count where descriptors[index].revents != 0 {
                if descriptors[index].revents & Int16(POLLNVAL) != 0 {
                    descriptors[index].fd = -1  // closed under us: poll ignores negative descriptors
                    continue
                }
                sources[index - 1].readable()
            }
        }
    }
}
