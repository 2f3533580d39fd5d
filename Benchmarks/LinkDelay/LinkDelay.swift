import CLinux
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `LinkDelay`: two TUN devices joined by an emulated link, each packet delayed by a fixed one-way delay and the
/// rate limited by a bottleneck with a bounded queue (`LinkDirection`), for benches on a link like a real network
/// where the kernel has no `netem`. Run as root; bench/lib/netns-link.sh moves the devices into two network
/// namespaces and gives them addresses.
///
///     LinkDelay NAME-A NAME-B DELAY-MS RATE-MBIT [QUEUE-BYTES]
///
/// Creates TUN devices NAME-A and NAME-B, prints "ready" on stdout, then forwards every IP packet read from one to
/// the other after the link's delay, until killed. RATE-MBIT 0: no rate limit. QUEUE-BYTES defaults to the
/// bandwidth-delay product of the round trip (at least 64 KiB). On SIGTERM or SIGINT it prints per direction the
/// packets forwarded and dropped on stderr, and exits 0 (the devices go with it).
@main
enum LinkDelay {
    static func main() {
        let arguments = CommandLine.arguments
        guard (5...6).contains(arguments.count), let delayMs = Double(arguments[3]), delayMs >= 0,
              let rateMbit = Double(arguments[4]), rateMbit >= 0,
              arguments.count == 5 || UInt64(arguments[5]) != nil else {
            fail("usage: LinkDelay NAME-A NAME-B DELAY-MS RATE-MBIT [QUEUE-BYTES] (one-way delay in ms, rate in Mbit/s, 0: unlimited)", code: 64)
        }
        let delay = UInt64(delayMs * 1_000_000)
        let rate = UInt64(rateMbit * 1_000_000)
        let bdp = rate / 8 * (2 * delay) / 1_000_000_000
        let queue = arguments.count == 6 ? UInt64(arguments[5])! : max(64 << 10, bdp)
        let a = openTUN(arguments[1])
        let b = openTUN(arguments[2])
        FileHandle.standardOutput.write(Data("ready\n".utf8))
        var link = Link(a: a, b: b, direction: LinkDirection(delay: delay, rate: rate, queueLimit: queue))
        link.run()
        FileHandle.standardError.write(Data("""
            LinkDelay: \(arguments[1]) → \(arguments[2]): \(link.forward.accepted) forwarded, \(link.forward.dropped) dropped; \
            \(arguments[2]) → \(arguments[1]): \(link.backward.accepted) forwarded, \(link.backward.dropped) dropped\n
            """.utf8))
    }

    /// A new non-blocking TUN device named `name`.
    static func openTUN(_ name: String) -> Int32 {
        let fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { fail("cannot open /dev/net/tun: \(String(cString: strerror(errno))) (run as root, with the tun module)", code: 1) }
        var actual = [CChar](repeating: 0, count: 16)
        guard recipes_tun_attach(fd, name, &actual) == 0 else {
            fail("cannot create the TUN device \(name): \(String(cString: strerror(errno)))", code: 1)
        }
        return fd
    }

    static func fail(_ message: String, code: Int32) -> Never {
        FileHandle.standardError.write(Data("LinkDelay: \(message)\n".utf8))
        exit(code)
    }
}

/// Both directions of the link between two TUN descriptors, and the packets on their way.
struct Link {
    /// A packet and when it reaches the other side.
    struct InFlight {
        var bytes: [UInt8]
        var deliverAt: UInt64
    }

    let a: Int32
    let b: Int32
    var forward: LinkDirection
    var backward: LinkDirection
    private var towardB: [InFlight] = []
    private var towardA: [InFlight] = []
    private var headB = 0
    private var headA = 0

    init(a: Int32, b: Int32, direction: LinkDirection) {
        self.a = a
        self.b = b
        forward = direction
        backward = direction
    }

    /// Forwards packets until SIGTERM or SIGINT.
    mutating func run() {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGTERM)
        sigaddset(&signals, SIGINT)
        sigprocmask(SIG_BLOCK, &signals, nil)
        var pending = sigset_t()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            sigpending(&pending)
            if sigismember(&pending, SIGTERM) == 1 || sigismember(&pending, SIGINT) == 1 { return }
            let now = Self.now()
            Self.deliver(&towardB, &headB, to: b, now: now)
            Self.deliver(&towardA, &headA, to: a, now: now)
            var fds = [pollfd(fd: a, events: Int16(POLLIN), revents: 0), pollfd(fd: b, events: Int16(POLLIN), revents: 0)]
            // Wake for the next delivery, and at least every 100 ms to notice a signal.
            var wait = UInt64(100_000_000)
            for (queue, head) in [(towardB, headB), (towardA, headA)] where head < queue.count {
                wait = min(wait, queue[head].deliverAt > now ? queue[head].deliverAt - now : 0)
            }
            var timeout = timespec(tv_sec: Int(wait / 1_000_000_000), tv_nsec: Int(wait % 1_000_000_000))
            guard recipes_ppoll(&fds, 2, &timeout) >= 0 || errno == EINTR else { LinkDelay.fail("poll failed: \(errno)", code: 1) }
            if fds[0].revents & Int16(POLLIN) != 0 { Self.receive(from: a, into: &towardB, direction: &forward, buffer: &buffer) }
            if fds[1].revents & Int16(POLLIN) != 0 { Self.receive(from: b, into: &towardA, direction: &backward, buffer: &buffer) }
        }
    }

    /// Reads every packet waiting on `fd` and queues those the link accepts.
    private static func receive(from fd: Int32, into queue: inout [InFlight], direction: inout LinkDirection, buffer: inout [UInt8]) {
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { return }
            if let deliverAt = direction.admit(bytes: count, at: Self.now()) {
                queue.append(InFlight(bytes: Array(buffer[0..<count]), deliverAt: deliverAt))
            }
        }
    }

    /// Writes the packets due by `now` to `fd`, in order.
    private static func deliver(_ queue: inout [InFlight], _ head: inout Int, to fd: Int32, now: UInt64) {
        while head < queue.count, queue[head].deliverAt <= now {
            _ = queue[head].bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            head += 1
        }
        if head > 4096, head * 2 > queue.count {
            queue.removeFirst(head)
            head = 0
        }
    }

    /// The monotonic clock, in nanoseconds.
    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
