import Foundation
import Locking
#if canImport(Glibc)
import Glibc
#endif

/// A loopback HTTP forwarding proxy, as `http_proxy` names one: it takes absolute-URI requests
/// (`GET http://recipes.test:8080/v1/changes HTTP/1.1`), and forwards each to the loopback port its host name is mapped
/// to, in origin form, relaying the answer. A name it does not map gets `502`; CONNECT (https) gets `405`.
///
/// The mapped names need not resolve anywhere else: a client that reaches such a server at all went through the proxy.
/// Written on POSIX sockets with a thread per connection, like `LoopbackFaultProxy`; each client connection keeps one
/// upstream connection while the host stays the same and both sides allow it.
public final class LoopbackForwardProxy: Sendable {
    /// A request as the proxy received it.
    public struct Request: Sendable, Equatable {
        /// The method, as sent.
        public var method: String
        /// The host name of the request's absolute URI.
        public var host: String
        /// The path and query forwarded.
        public var path: String
    }

    private struct State {
        var requests: [Request] = []
        var connections = 0
        var openSockets: Set<Int32> = []
        var stopped = false
    }

    /// The port the proxy listens on (127.0.0.1).
    public let port: Int
    private let hosts: [String: Int]
    private let listener: Int32
    private let state = Locked(State())

    /// Starts a proxy on an ephemeral loopback port that reaches each host name of `hosts` at `127.0.0.1:<port>`.
    public init(hosts: [String: Int]) throws {
        self.hosts = Dictionary(uniqueKeysWithValues: hosts.map { ($0.key.lowercased(), $0.value) })
        let (socket, port) = try LoopbackSocket.listen()
        self.port = port
        listener = socket
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// The proxy's URL, the value of `http_proxy`: `http://127.0.0.1:<port>`.
    public var url: String { "http://127.0.0.1:\(port)" }

    /// Every request received, in order.
    public var requests: [Request] { state.withLock { $0.requests } }

    /// How many connections clients opened to the proxy (requests, and reachability probes that send nothing).
    public var connections: Int { state.withLock { $0.connections } }

    /// Stops accepting and shuts every connection down.
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

    /// A loopback TCP port nothing listens on (bound, noted, closed): where a probe is refused.
    public static func closedPort() throws -> Int { try LoopbackSocket.closedPort() }

    // MARK: Connections

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)  // no process spawned meanwhile may inherit it (see LoopbackFaultProxy)
            let stopped = state.withLock { state in
                if !state.stopped {
                    state.openSockets.insert(client)
                    state.connections += 1
                }
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
        var upstream: (host: String, socket: Int32, reader: HTTPMessageReader)?
        defer {
            if let upstream { closeTracked(upstream.socket) }
            closeTracked(client)
        }
        while let message = clientReader.readMessage(isRequest: true, requestMethod: nil) {
            guard let (request, forwarded) = originForm(message) else {
                let status = message.method == "CONNECT" ? "405 Method Not Allowed" : "400 Bad Request"
                _ = SocketReader.writeAll(client, Data("HTTP/1.1 \(status)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8))
                return
            }
            state.withLock { $0.requests.append(request) }
            guard let port = hosts[request.host] else {
                _ = SocketReader.writeAll(client, Data("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8))
                return
            }
            if let open = upstream, open.host != request.host {
                closeTracked(open.socket)
                upstream = nil
            }
            if upstream == nil {
                guard let socket = connectUpstream(port: port) else {
                    _ = SocketReader.writeAll(client, Data("HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8))
                    return
                }
                upstream = (request.host, socket, HTTPMessageReader(socket: socket))
            }
            guard let connection = upstream, SocketReader.writeAll(connection.socket, forwarded),
                  let answer = upstream?.reader.readMessage(isRequest: false, requestMethod: message.method),
                  SocketReader.writeAll(client, answer.raw)
            else { return }
            if answer.closesConnection || message.closesConnection { return }
        }
    }

    /// The request of `message` and its bytes in origin form, or nil when its target is no absolute `http://` URI.
    private func originForm(_ message: HTTPMessageReader.Message) -> (Request, Data)? {
        guard let components = URLComponents(string: message.target), components.scheme?.lowercased() == "http",
              let host = components.host?.lowercased(),
              let headEnd = message.raw.firstRange(of: Data("\r\n".utf8))
        else { return nil }
        var path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        if let query = components.percentEncodedQuery { path += "?" + query }
        let version = String(decoding: message.raw[..<headEnd.lowerBound], as: UTF8.self).split(separator: " ").last ?? "HTTP/1.1"
        var forwarded = Data("\(message.method) \(path) \(version)".utf8)
        forwarded.append(message.raw[headEnd.lowerBound...])
        return (Request(method: message.method, host: host, path: path), forwarded)
    }

    private func connectUpstream(port: Int) -> Int32? {
        guard let socket = LoopbackSocket.connect(port: port) else { return nil }
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

    /// Removes `socket` from the open set and closes it in one step (see `LoopbackFaultProxy.stop`).
    private func closeTracked(_ socket: Int32) {
        state.withLock { state in
            if state.openSockets.remove(socket) != nil { Glibc.close(socket) }
        }
    }
}
