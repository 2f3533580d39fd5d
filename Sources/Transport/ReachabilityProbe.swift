import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The reachability check of the sync engine's reachability condition: can a TCP connection to host:port be opened?
///
/// A value holding a function, so tests pass a fixed answer (`.constant(false)`) and the program passes `.live()`.
public struct ReachabilityProbe: Sendable {
    private let check: @Sendable (String, Int) async -> Bool

    /// A probe answering with `check(host, port)`.
    public init(_ check: @escaping @Sendable (_ host: String, _ port: Int) async -> Bool) {
        self.check = check
    }

    /// The real probe: resolves `host` and opens (then closes) a TCP connection, answering within `timeout`.
    ///
    /// Name resolution cannot be given a deadline (`getaddrinfo` blocks, for seconds when no DNS server answers),
    /// so the answer is "unreachable" once `timeout` has passed even if the lookup is still running; its late
    /// result is dropped.
    public static func live(timeout: Duration = .seconds(2)) -> ReachabilityProbe {
        ReachabilityProbe { host, port in
            await withCheckedContinuation { continuation in
                let answer = FirstAnswer(continuation)
                // Name resolution and connect block: run them off the cooperative thread pool.
                DispatchQueue.global().async {
                    answer.give(TCPConnectProbe.canConnect(host: host, port: port, timeout: timeout))
                }
                let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
                DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { answer.give(false) }
            }
        }
    }

    /// A probe that always answers `reachable` (for tests and previews).
    public static func constant(_ reachable: Bool) -> ReachabilityProbe {
        ReachabilityProbe { _, _ in reachable }
    }

    /// Whether a TCP connection to `host`:`port` can be opened now.
    public func isReachable(host: String, port: Int) async -> Bool {
        await check(host, port)
    }

    /// Whether the host of `url` can be reached on its port (the scheme's default when the URL names none).
    public func isReachable(url: String) async -> Bool {
        guard let target = ReachabilityProbe.hostAndPort(of: url) else { return false }
        return await check(target.host, target.port)
    }

    /// The host and port a URL connects to: the explicit port, else 443 for https and 80 for http.
    public static func hostAndPort(of url: String) -> (host: String, port: Int)? {
        guard let components = URLComponents(string: url), let host = components.host, !host.isEmpty else { return nil }
        let scheme = components.scheme?.lowercased()
        guard let port = components.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : nil) else { return nil }
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return (bare, port)
    }
}

/// Resumes a continuation with the first answer given and ignores the rest.
private final class FirstAnswer: Sendable {
    private let continuation: Mutex<CheckedContinuation<Bool, Never>?>

    init(_ continuation: CheckedContinuation<Bool, Never>) { self.continuation = Mutex(continuation) }

    func give(_ answer: Bool) {
        continuation.withLock { pending in
            pending?.resume(returning: answer)
            pending = nil
        }
    }
}

/// A non-blocking TCP connect with a deadline, over every address the host resolves to.
enum TCPConnectProbe {
    /// True when some address of `host` accepts a TCP connection on `port` before `timeout` runs out.
    static func canConnect(host: String, port: Int, timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else { return false }
        defer { freeaddrinfo(first) }
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let address = entry {
            if connect(address.pointee, deadline: deadline) { return true }
            entry = address.pointee.ai_next
        }
        return false
    }

    private static func connect(_ address: addrinfo, deadline: ContinuousClock.Instant) -> Bool {
        let socket = Glibc.socket(address.ai_family, address.ai_socktype | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue),
                                  address.ai_protocol)
        guard socket >= 0 else { return false }
        defer { Glibc.close(socket) }
        if Glibc.connect(socket, address.ai_addr, address.ai_addrlen) == 0 { return true }
        guard errno == EINPROGRESS else { return false }
        while true {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { return false }
            var descriptor = pollfd(fd: socket, events: Int16(POLLOUT), revents: 0)
            let ready = poll(&descriptor, 1, Int32(max(1, remaining.milliseconds)))
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { return false }
            var failure: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(socket, SOL_SOCKET, SO_ERROR, &failure, &length) == 0 else { return false }
            return failure == 0
        }
    }
}
