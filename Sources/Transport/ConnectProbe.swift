import Foundation
import Locking
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether a TCP connection to host:port can be opened now: the check behind a caller's reachability condition.
///
/// A value holding a function, so tests pass a fixed answer (HTTPTestSupport's `.constant(false)`) and the program passes `.live()`.
public struct ConnectProbe: Sendable {
    private let check: @Sendable (String, Int) async -> Bool
    /// Why the last connection to each host:port could not be opened (the live probe's; nil for others).
    private let failures: Locked<[String: ConnectFailure]>?

    /// A probe answering with `check(host, port)`.
    public init(_ check: @escaping @Sendable (_ host: String, _ port: Int) async -> Bool) {
        self.check = check
        self.failures = nil
    }

    private init(check: @escaping @Sendable (String, Int) async -> Bool, failures: Locked<[String: ConnectFailure]>) {
        self.check = check
        self.failures = failures
    }

    /// Why the last attempt of this probe to connect to `host`:`port` failed, when it did and the probe knows (the
    /// live one does): what a person is told about an unreachable server.
    public func lastFailure(host: String, port: Int) -> ConnectFailure? {
        failures?.withLock { $0["\(host):\(port)"] }
    }

    /// The real probe: resolves `host` and opens (then closes) a TCP connection, answering within `timeout`.
    ///
    /// Name resolution cannot be given a deadline (`getaddrinfo` blocks, for seconds when no DNS server answers),
    /// so the answer is "unreachable" once `timeout` has passed even if the lookup is still running; its late
    /// result is dropped.
    public static func live(timeout: Duration = .seconds(2)) -> ConnectProbe {
        // A day is "forever" for a probe, and keeps every deadline computation far from overflowing.
        let timeout = min(max(timeout, .zero), .seconds(86_400))
        let failures = Locked<[String: ConnectFailure]>([:])
        return ConnectProbe(check: { host, port in
            let key = "\(host):\(port)"
            return await withCheckedContinuation { continuation in
                let answer = FirstAnswer(continuation)
                // Name resolution and connect block: run them off the cooperative thread pool.
                DispatchQueue.global().async {
                    let failure = TCPConnectProbe.attempt(host: host, port: port, timeout: timeout)
                    if answer.give(failure == nil) { failures.withLock { $0[key] = failure } }
                }
                let seconds = timeout / .seconds(1)
                DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
                    if answer.give(false) { failures.withLock { $0[key] = .timedOut } }
                }
            }
        }, failures: failures)
    }

    /// Whether a TCP connection to `host`:`port` can be opened now.
    public func isReachable(host: String, port: Int) async -> Bool {
        await check(host, port)
    }

    /// Where a request to `url` opens its TCP connection: the proxy libcurl takes from `environment`, if one
    /// applies, else the URL's own host and port; nil for a URL without a host or an http(s) scheme.
    ///
    /// The variables libcurl reads (https://curl.se/libcurl/c/CURLOPT_PROXY.html, CURLOPT_NOPROXY):
    /// `http_proxy` for http (lower case only: libcurl ignores `HTTP_PROXY`), `https_proxy` or `HTTPS_PROXY` for
    /// https, else `all_proxy` or `ALL_PROXY`; lower case first, an empty value means none. `no_proxy` or
    /// `NO_PROXY` lists hosts reached directly: comma-separated names matched exactly or as a domain suffix
    /// (a leading dot is ignored), or `*` for every host. A proxy without a port uses 1080 (443 for https://).
    public static func connectTarget(of url: String, environment: [String: String]) -> (host: String, port: Int)? {
        guard let direct = hostAndPort(of: url) else { return nil }
        let scheme = URLComponents(string: url)?.scheme?.lowercased()
        func variable(_ names: String...) -> String? {
            for name in names {
                if let value = environment[name]?.trimmingCharacters(in: .whitespaces), !value.isEmpty { return value }
            }
            return nil
        }
        let specific = scheme == "https" ? variable("https_proxy", "HTTPS_PROXY") : variable("http_proxy")
        guard let proxy = specific ?? variable("all_proxy", "ALL_PROXY") else { return direct }
        if let exceptions = variable("no_proxy", "NO_PROXY"), bypassesProxy(host: direct.host, noProxy: exceptions) {
            return direct
        }
        return proxyHostAndPort(proxy) ?? direct
    }

    /// Whether `host` matches a `no_proxy` list: `*`, or an entry equal to it or a parent domain of it.
    static func bypassesProxy(host: String, noProxy: String) -> Bool {
        let host = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "."))
        for entry in noProxy.split(whereSeparator: { $0 == "," || $0 == " " }) {
            var name = entry.lowercased()
            if name == "*" { return true }
            if name.hasPrefix("[") && name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
            while name.hasPrefix(".") { name.removeFirst() }
            if name.hasSuffix(".") { name.removeLast() }
            guard !name.isEmpty else { continue }
            if host == name || host.hasSuffix("." + name) { return true }
        }
        return false
    }

    /// The host and port of a proxy variable's value (`host:port`, `http://user@host:port/`…).
    private static func proxyHostAndPort(_ value: String) -> (host: String, port: Int)? {
        let withScheme = value.contains("://") ? value : "http://" + value
        guard let components = URLComponents(string: withScheme), let host = components.host, !host.isEmpty else { return nil }
        let port = components.port ?? (components.scheme?.lowercased() == "https" ? 443 : 1080)
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return (bare, port)
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
    private let continuation: Locked<CheckedContinuation<Bool, Never>?>

    init(_ continuation: CheckedContinuation<Bool, Never>) { self.continuation = Locked(continuation) }

    /// Gives `answer` if none was given yet; whether it was this one.
    @discardableResult
    func give(_ answer: Bool) -> Bool {
        continuation.withLock { pending in
            guard let waiting = pending else { return false }
            waiting.resume(returning: answer)
            pending = nil
            return true
        }
    }
}

/// Why a TCP connection could not be opened.
public enum ConnectFailure: Sendable, Equatable {
    /// The host's name could not be resolved.
    case unresolved
    /// The host answered that nothing listens on the port (`ECONNREFUSED`).
    case refused
    /// No route to the host or its network (`EHOSTUNREACH`, `ENETUNREACH`, …), in the system's words.
    case unreachable(String)
    /// No answer before the probe's deadline (the host down, a firewall dropping the packets, no network).
    case timedOut
}

/// A non-blocking TCP connect with a deadline, over every address the host resolves to.
enum TCPConnectProbe {
    /// True when some address of `host` accepts a TCP connection on `port` before `timeout` runs out.
    static func canConnect(host: String, port: Int, timeout: Duration) -> Bool {
        attempt(host: host, port: port, timeout: timeout) == nil
    }

    /// Nil when some address of `host` accepts a TCP connection on `port` before `timeout` runs out, else why the
    /// last address tried did not (a refusal wins over the others: the host is there).
    static func attempt(host: String, port: Int, timeout: Duration) -> ConnectFailure? {
        let deadline = ContinuousClock.now + timeout
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else { return .unresolved }
        defer { freeaddrinfo(first) }
        var entry: UnsafeMutablePointer<addrinfo>? = first
        var failure = ConnectFailure.timedOut
        while let address = entry {
            guard let error = connect(address.pointee, deadline: deadline) else { return nil }
            if failure != .refused { failure = error }
            entry = address.pointee.ai_next
        }
        return failure
    }

    /// Nil when connected, else why not.
    private static func connect(_ address: addrinfo, deadline: ContinuousClock.Instant) -> ConnectFailure? {
        let socket = Glibc.socket(address.ai_family, address.ai_socktype | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue),
                                  address.ai_protocol)
        guard socket >= 0 else { return .unreachable(String(cString: strerror(errno))) }
        defer { Glibc.close(socket) }
        if Glibc.connect(socket, address.ai_addr, address.ai_addrlen) == 0 { return nil }
        guard errno == EINPROGRESS else { return failure(errno) }
        while true {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { return .timedOut }
            var descriptor = pollfd(fd: socket, events: Int16(POLLOUT), revents: 0)
            let ready = poll(&descriptor, 1, Int32(clamping: max(1, remaining.milliseconds)))
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { return .timedOut }
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(socket, SOL_SOCKET, SO_ERROR, &error, &length) == 0 else { return failure(errno) }
            return error == 0 ? nil : failure(error)
        }
    }

    /// The failure an `errno` of `connect` stands for.
    private static func failure(_ code: Int32) -> ConnectFailure {
        code == ECONNREFUSED ? .refused : .unreachable(String(cString: strerror(code)))
    }
}
