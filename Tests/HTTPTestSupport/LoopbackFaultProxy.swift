import Foundation
import Locking
#if canImport(Glibc)
import Glibc
#endif

/// A loopback HTTP/1.1 proxy in front of one upstream server (a real Mealie, the reference server) that forwards
/// requests as they are and, by rule, loses the answer after the request reached the upstream, resets connections,
/// or answers `503` with `Retry-After` itself; its counters say what reached the upstream and what came back.
///
/// Written on POSIX sockets with a thread per connection, like `LoopbackHTTPServer`. Each client connection gets its
/// own upstream connection, kept alive while both sides allow it.
public final class LoopbackFaultProxy: Sendable {
    /// What the proxy does with one request.
    public enum Fault: Sendable, Equatable {
        /// Forwards the request and relays the answer.
        case forward
        /// Forwards the request, reads the upstream's whole answer, then closes the client's connection without
        /// sending any of it: the request took effect and its answer was lost.
        case dropAnswer
        /// As `dropAnswer`, with a reset (RST) of the client's connection instead of a close.
        case resetAfterUpstream
        /// Resets the client's connection once the request has arrived, without forwarding it: it never reached the
        /// upstream.
        case resetBeforeUpstream
        /// Answers `503 Service Unavailable` with this `Retry-After` value, without forwarding.
        case unavailable(retryAfter: String)
        /// Answers `status` (a `3xx`) with this `Location` and an HTML page, without forwarding: a captive portal.
        case redirect(status: Int, location: String)
        /// Answers `200 OK` with an HTML sign-in page, without forwarding: a captive portal that serves its page in
        /// the place of every answer.
        case portalPage
        /// Forwards the request and relays the answer with its `Upload-Offset` lowered by this many bytes (when that
        /// leaves it above zero): the client is told of less than the upstream kept, as an answer to an earlier ask
        /// would be after another upload went on.
        case lowerUploadOffset(by: Int)
    }

    /// A request as the proxy saw it, for rules to match on.
    public struct Request: Sendable, Equatable {
        /// The method, as sent.
        public var method: String
        /// The request target (path and query), as sent.
        public var path: String
        /// 1-based number of this request among all the proxy received.
        public var number: Int
    }

    /// What happened so far.
    public struct Counters: Sendable, Equatable {
        /// Requests received in full from clients.
        public var requests = 0
        /// Requests sent on to the upstream (each reached it).
        public var forwarded = 0
        /// Answers relayed to the client.
        public var relayed = 0
        /// Answers read from the upstream and not relayed (`dropAnswer`, `resetAfterUpstream`).
        public var dropped = 0
        /// Client connections reset (`resetBeforeUpstream`, `resetAfterUpstream`).
        public var resets = 0
        /// Answers the proxy gave itself: `503` (`unavailable`) and redirects (`redirect`).
        public var unavailable = 0
        /// Requests that could not be forwarded: the upstream refused the connection or closed it early.
        public var upstreamFailures = 0

        /// Counters with these values (the rest zero), to compare with.
        public init(requests: Int = 0, forwarded: Int = 0, relayed: Int = 0, dropped: Int = 0, resets: Int = 0,
                    unavailable: Int = 0, upstreamFailures: Int = 0) {
            self.requests = requests
            self.forwarded = forwarded
            self.relayed = relayed
            self.dropped = dropped
            self.resets = resets
            self.unavailable = unavailable
            self.upstreamFailures = upstreamFailures
        }
    }

    private struct Rule {
        var fault: Fault
        var remaining: Int
        var matches: @Sendable (Request) -> Bool
    }

    private struct State {
        var rules: [Rule] = []
        var counters = Counters()
        var log: [(Request, Fault)] = []
        var openSockets: Set<Int32> = []
        var stopped = false
    }

    /// The port the proxy listens on (127.0.0.1).
    public let port: Int
    /// The upstream's port (127.0.0.1).
    public let upstreamPort: Int
    private let listener: Int32
    private let state = Locked(State())

    /// Starts a proxy on an ephemeral loopback port in front of `127.0.0.1:upstreamPort`, forwarding everything until
    /// rules are added.
    public init(upstreamPort: Int) throws {
        let (socket, port) = try LoopbackSocket.listen()
        self.port = port
        self.upstreamPort = upstreamPort
        listener = socket
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// A proxy in front of the server at `upstreamURL` (`http://127.0.0.1:<port>`).
    public convenience init(upstreamURL: String) throws {
        guard let port = URLComponents(string: upstreamURL)?.port else { throw POSIXError(.EINVAL) }
        try self.init(upstreamPort: port)
    }

    /// The proxy's base URL, `http://127.0.0.1:<port>`.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// The counters so far.
    public var counters: Counters { state.withLock { $0.counters } }

    /// Every request seen with what was done to it, in order.
    public var log: [(request: Request, fault: Fault)] { state.withLock { $0.log.map { (request: $0.0, fault: $0.1) } } }

    /// Applies `fault` to the next `times` requests for which `matches` holds; rules are tried in the order added, a
    /// used-up rule no longer applies, and a request no rule matches is forwarded.
    public func add(_ fault: Fault, times: Int = 1, where matches: @escaping @Sendable (Request) -> Bool = { _ in true }) {
        state.withLock { $0.rules.append(Rule(fault: fault, remaining: times, matches: matches)) }
    }

    /// Removes every rule not used up yet.
    public func clearRules() {
        state.withLock { $0.rules.removeAll() }
    }

    /// Stops accepting and shuts every connection down (under the lock their threads close them under, so no
    /// descriptor number is shut down after another socket took it).
    public func stop() {
        state.withLock { state in
            state.stopped = true
            for socket in state.openSockets { Glibc.shutdown(socket, Int32(SHUT_RDWR)) }
        }
        Glibc.shutdown(listener, Int32(SHUT_RDWR))
    }

    deinit {
        Glibc.close(listener)
    }

    // MARK: Connections

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            // Close-on-exec at once (Glibc's module has no accept4): a process another test spawns meanwhile must not
            // inherit the connection, or closing it here would not end it for the client.
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            let stopped = state.withLock { state in
                if !state.stopped { state.openSockets.insert(client) }
                return state.stopped
            }
            if stopped {
                Glibc.close(client)
                return
            }
            let thread = Thread { [self] in serve(client) }
            thread.start()
        }
    }

    private func serve(_ client: Int32) {
        var clientReader = HTTPMessageReader(socket: client)
        var upstream: (socket: Int32, reader: HTTPMessageReader)?
        defer {
            if let upstream { closeTracked(upstream.socket) }
            closeTracked(client)
        }
        while let request = clientReader.readMessage(isRequest: true, requestMethod: nil) {
            let fault = decide(request)
            switch fault {
            case .resetBeforeUpstream:
                reset(client)
                count { $0.resets += 1 }
                return
            case .unavailable(let retryAfter):
                let answer = "HTTP/1.1 503 Service Unavailable\r\nRetry-After: \(retryAfter)\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 25\r\n\r\n{\"detail\":\"unavailable\"}\n"
                count { $0.unavailable += 1 } // counted before the client can see it, so a test that has the answer sees the count
                guard SocketReader.writeAll(client, Data(answer.utf8)) else { return }
                continue
            case .redirect(let status, let location):
                let page = "<html><body><a href=\"\(location)\">Sign in to the network</a></body></html>"
                let answer = "HTTP/1.1 \(status) Found\r\nLocation: \(location)\r\nContent-Type: text/html\r\n"
                    + "Content-Length: \(page.utf8.count)\r\n\r\n\(request.method == "HEAD" ? "" : page)"
                count { $0.unavailable += 1 } // counted with the other answers the proxy gives itself
                guard SocketReader.writeAll(client, Data(answer.utf8)) else { return }
                continue
            case .portalPage:
                let page = "<html><body><form action=\"/login\">Sign in to the network</form></body></html>"
                let answer = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: \(page.utf8.count)\r\n\r\n"
                    + (request.method == "HEAD" ? "" : page)
                count { $0.unavailable += 1 } // counted with the other answers the proxy gives itself
                guard SocketReader.writeAll(client, Data(answer.utf8)) else { return }
                continue
            case .forward, .dropAnswer, .resetAfterUpstream, .lowerUploadOffset:
                break
            }
            if upstream == nil {
                guard let socket = connectUpstream() else {
                    count { $0.upstreamFailures += 1 }
                    return
                }
                upstream = (socket, HTTPMessageReader(socket: socket))
            }
            guard let connection = upstream, SocketReader.writeAll(connection.socket, request.raw) else {
                count { $0.upstreamFailures += 1 }
                return
            }
            count { $0.forwarded += 1 }
            guard let answer = upstream?.reader.readMessage(isRequest: false, requestMethod: request.method) else {
                count { $0.upstreamFailures += 1 }
                return
            }
            switch fault {
            case .dropAnswer:
                count { $0.dropped += 1 }
                return
            case .resetAfterUpstream:
                reset(client)
                count { $0.dropped += 1; $0.resets += 1 }
                return
            default:
                break
            }
            count { $0.relayed += 1 }
            var relayed = answer.raw
            if case .lowerUploadOffset(let bytes) = fault { relayed = Self.lowering(uploadOffsetOf: relayed, by: bytes) }
            guard SocketReader.writeAll(client, relayed) else { return }
            if answer.closesConnection {
                closeTracked(connection.socket)
                upstream = nil
                return
            }
            if request.closesConnection { return }
        }
    }

    /// `answer` with the value of its `Upload-Offset` header lowered by `bytes`, when that leaves it above zero (the
    /// head only: the body, if any, is kept byte for byte).
    static func lowering(uploadOffsetOf answer: Data, by bytes: Int) -> Data {
        guard let end = answer.range(of: Data("\r\n\r\n".utf8)) else { return answer }
        let head = String(decoding: answer[..<end.lowerBound], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        for index in lines.indices {
            let parts = lines[index].split(separator: ":", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "upload-offset",
                let offset = Int(parts[1].trimmingCharacters(in: .whitespaces)), offset - bytes > 0
            else { continue }
            lines[index] = "Upload-Offset: \(offset - bytes)"
        }
        return Data(lines.joined(separator: "\r\n").utf8) + answer[end.lowerBound...]
    }

    private func decide(_ message: HTTPMessageReader.Message) -> Fault {
        state.withLock { state in
            state.counters.requests += 1
            let request = Request(method: message.method, path: message.target, number: state.counters.requests)
            var fault = Fault.forward
            if let index = state.rules.firstIndex(where: { $0.remaining > 0 && $0.matches(request) }) {
                fault = state.rules[index].fault
                state.rules[index].remaining -= 1
            }
            state.log.append((request, fault))
            return fault
        }
    }

    private func count(_ change: (inout Counters) -> Void) {
        state.withLock { change(&$0.counters) }
    }

    private func connectUpstream() -> Int32? {
        guard let socket = LoopbackSocket.connect(port: upstreamPort) else { return nil }
        let tracked = state.withLock { state -> Bool in
            guard !state.stopped else { return false }
            state.openSockets.insert(socket)
            return true
        }
        guard tracked else {
            Glibc.close(socket)
            return nil
        }
        return socket
    }

    /// Resets `socket`: SO_LINGER with a zero timeout makes its close send RST instead of FIN.
    private func reset(_ socket: Int32) {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(socket, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
    }

    /// Removes `socket` from the open set and closes it in one step (see `stop`).
    private func closeTracked(_ socket: Int32) {
        state.withLock { state in
            if state.openSockets.remove(socket) != nil { Glibc.close(socket) }
        }
    }
}
