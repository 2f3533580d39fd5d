import Foundation
import Locking
#if canImport(Glibc)
import Glibc
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1 (ephemeral port) written on POSIX sockets, for observing what the
/// transport really does on the wire: connections opened, request heads, body bytes, stalls and resets.
public final class LoopbackHTTPServer: Sendable {
    /// What the server does with one request, decided once its head has arrived.
    public enum Behavior: Sendable {
        /// Reads the whole body, then answers.
        case respond(status: Int, headers: [String: String] = [:], body: Data = Data())
        /// Reads the body `bytesPerSecond` at a time (a slow link), then answers.
        case respondAfterSlowBody(bytesPerSecond: Int, status: Int, headers: [String: String] = [:], body: Data = Data())
        /// Reads the whole body, sends the status line and headers with `Content-Length: declaredLength`, then the
        /// body a byte at a time, `bytesPerSecond` a second, until the client goes away (a trickling answer).
        case trickle(status: Int, declaredLength: Int, bytesPerSecond: Int)
        /// Reads the whole body, then sends `bytes` as they are and closes (a malformed or outsized answer).
        case raw(Data)
        /// Reads the whole body, then never answers (a server that stopped sending anything).
        case stallAfterBody
        /// Reads nothing of the body and never answers (the client's upload stalls).
        case stallBeforeBody
        /// Reads up to `bytes` of the body, then resets the connection.
        case resetAfterBody(bytes: Int)
    }

    /// A request head as the server saw it.
    public struct Head: Sendable {
        public var method: String
        public var path: String
        /// Lower-cased names.
        public var headers: [String: String]
        /// 1-based number of the connection this request came on.
        public var connection: Int
    }

    /// A request once its body was read.
    public struct Received: Sendable {
        public var head: Head
        public var bodyCount: Int64
        /// FNV-1a of the body, to compare with the file sent.
        public var bodyDigest: UInt64
        /// The body when it is at most 1 MiB.
        public var body: Data?
    }

    private struct State {
        var connections = 0
        var openSockets: Set<Int32> = []
        var received: [Received] = []
        var heads: [Head] = []
        var inFlight = 0
        var maxInFlight = 0
        var stopped = false
    }

    public let port: Int
    private let listener: Int32
    private let state = Locked(State())
    private let handler: @Sendable (Head) -> Behavior

    /// Starts listening; `handler` decides each request's fate (called on a connection thread).
    public init(handler: @escaping @Sendable (Head) -> Behavior) throws {
        let (socket, port) = try LoopbackSocket.listen()
        self.port = port
        listener = socket
        self.handler = handler
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// A server answering every request with `status` and `body`.
    public convenience init(status: Int = 200, body: String = "ok") throws {
        try self.init { _ in .respond(status: status, body: Data(body.utf8)) }
    }

    /// The base URL, `http://127.0.0.1:<port>`.
    public var baseURL: String { "http://127.0.0.1:\(port)" }
    /// How many TCP connections were accepted so far.
    public var connectionCount: Int { state.withLock { $0.connections } }
    /// Every request whose body was read completely.
    public var received: [Received] { state.withLock { $0.received } }
    /// Every request head seen (also of requests that stalled).
    public var heads: [Head] { state.withLock { $0.heads } }
    /// The most requests ever being handled at the same time.
    public var maxInFlight: Int { state.withLock { $0.maxInFlight } }

    /// Waits (polling, up to `timeout`) until `condition` holds on the server's state. Every caller expects it to
    /// hold, so the generous default costs nothing when it does; 5 s was not always enough with the whole suite
    /// running in parallel on two cores (the request's own task had not started yet).
    public func wait(timeout: Duration = .seconds(60), until condition: @Sendable (LoopbackHTTPServer) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition(self) { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return condition(self)
    }

    /// Stops accepting and closes every connection.
    ///
    /// The connections are shut down under the lock their threads close them under: outside it, a connection could
    /// be closed between the snapshot and the shutdown, and its descriptor number reused by another test's socket
    /// (a curl connection, another server's listener), which this would then shut down.
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

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            let (number, stopped) = state.withLock { state in
                state.connections += 1
                if state.stopped {
                    Glibc.close(client)
                } else {
                    state.openSockets.insert(client)
                }
                return (state.connections, state.stopped)
            }
            if stopped { return }
            let thread = Thread { [self] in serve(client, connection: number) }
            thread.start()
        }
    }

    private func serve(_ socket: Int32, connection: Int) {
        var reader = SocketReader(socket: socket)
        defer {
            // Removed and closed in one step, so `stop` never shuts down a number this connection gave back.
            state.withLock { state in
                state.openSockets.remove(socket)
                Glibc.close(socket)
            }
        }
        while let head = reader.readHead(connection: connection) {
            state.withLock { state in
                state.heads.append(head)
                state.inFlight += 1
                state.maxInFlight = max(state.maxInFlight, state.inFlight)
            }
            defer { state.withLock { $0.inFlight -= 1 } }
            let length = Int64(head.headers["content-length"] ?? "0") ?? 0
            switch handler(head) {
            case .stallBeforeBody:
                reader.waitForClose()
                return
            case .resetAfterBody(let bytes):
                _ = reader.readBody(length: min(length, Int64(bytes)))
                var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
                setsockopt(socket, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
                return
            case .stallAfterBody:
                guard let body = reader.readBody(length: length) else { return }
                record(head, body)
                reader.waitForClose()
                return
            case .respond(let status, let headers, let body):
                guard let read = reader.readBody(length: length) else { return }
                record(head, read)
                guard answer(socket, head, status: status, headers: headers, body: body) else { return }
            case .respondAfterSlowBody(let rate, let status, let headers, let body):
                guard let read = reader.readBody(length: length, bytesPerSecond: rate) else { return }
                record(head, read)
                guard answer(socket, head, status: status, headers: headers, body: body) else { return }
            case .trickle(let status, let declared, let rate):
                guard let read = reader.readBody(length: length) else { return }
                record(head, read)
                let opening = "HTTP/1.1 \(status) Status\r\nContent-Type: application/json\r\nContent-Length: \(declared)\r\n\r\n"
                guard SocketReader.writeAll(socket, Data(opening.utf8)) else { return }
                for _ in 0..<declared {
                    if state.withLock({ $0.stopped }) { return }
                    guard SocketReader.writeAll(socket, Data(" ".utf8)) else { return }
                    Thread.sleep(forTimeInterval: 1 / Double(max(1, rate)))
                }
                return
            case .raw(let bytes):
                guard let read = reader.readBody(length: length) else { return }
                record(head, read)
                _ = SocketReader.writeAll(socket, bytes)
                return
            }
        }
    }

    /// Sends one answer; false when the connection should end (it broke, or the client asked to close it).
    private func answer(_ socket: Int32, _ head: Head, status: Int, headers: [String: String], body: Data) -> Bool {
        var lines = ["HTTP/1.1 \(status) Status", "Content-Length: \(body.count)"]
        for (name, value) in headers { lines.append("\(name): \(value)") }
        var bytes = Data((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
        if head.method != "HEAD" { bytes.append(body) }
        guard SocketReader.writeAll(socket, bytes) else { return false }
        return head.headers["connection"]?.lowercased() != "close"
    }

    private func record(_ head: Head, _ body: (count: Int64, digest: UInt64, data: Data?)) {
        state.withLock { $0.received.append(Received(head: head, bodyCount: body.count, bodyDigest: body.digest, body: body.data)) }
    }
}

/// FNV-1a over bytes, a cheap fingerprint to compare a streamed body with its file.
public struct FNV1a {
    public private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325
    public init() {}
    public mutating func add(_ bytes: UnsafeRawBufferPointer) {
        for byte in bytes {
            value ^= UInt64(byte)
            value &*= 0x0000_0100_0000_01b3
        }
    }
}

/// Buffered reading of HTTP/1.1 request heads and bodies from a socket.
struct SocketReader {
    let socket: Int32
    private var buffer: [UInt8] = []

    init(socket: Int32) { self.socket = socket }

    private mutating func fill(limit: Int = 256 * 1024) -> Bool {
        var chunk = [UInt8](repeating: 0, count: limit)
        let count = chunk.withUnsafeMutableBytes { Glibc.read(socket, $0.baseAddress, $0.count) }
        guard count > 0 else { return false }
        buffer.append(contentsOf: chunk[0..<count])
        return true
    }

    mutating func readHead(connection: Int) -> LoopbackHTTPServer.Head? {
        let terminator: [UInt8] = [13, 10, 13, 10]
        while true {
            if let end = buffer.firstRange(of: terminator) {
                let text = String(decoding: buffer[..<end.lowerBound], as: UTF8.self)
                buffer.removeSubrange(..<end.upperBound)
                var lines = text.components(separatedBy: "\r\n")
                let requestLine = lines.removeFirst().split(separator: " ")
                guard requestLine.count >= 2 else { return nil }
                var headers: [String: String] = [:]
                for line in lines {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
                return .init(method: String(requestLine[0]), path: String(requestLine[1]), headers: headers, connection: connection)
            }
            guard fill() else { return nil }
        }
    }

    /// Reads a body of `length` bytes; with `bytesPerSecond`, at most that many a second (the socket's receive
    /// buffer is shrunk so that the client feels it).
    mutating func readBody(length: Int64, bytesPerSecond: Int? = nil) -> (count: Int64, digest: UInt64, data: Data?)? {
        var remaining = length
        var digest = FNV1a()
        var kept: Data? = length <= 1 << 20 ? Data() : nil
        if bytesPerSecond != nil {
            var size: Int32 = 4096
            setsockopt(socket, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        while remaining > 0 {
            var slice = Int.max
            if let rate = bytesPerSecond {
                slice = max(1, rate / 10)
                Thread.sleep(forTimeInterval: 0.1)
            }
            if buffer.isEmpty { guard fill(limit: min(slice, 256 * 1024)) else { return nil } }
            let take = Int(min(Int64(min(buffer.count, slice)), remaining))
            buffer.withUnsafeBytes { digest.add(UnsafeRawBufferPointer(rebasing: $0[0..<take])) }
            kept?.append(contentsOf: buffer[0..<take])
            buffer.removeFirst(take)
            remaining -= Int64(take)
        }
        return (length, digest.value, kept)
    }

    /// Blocks until the peer closes (or the server shuts the socket down), reading and discarding nothing more
    /// than what arrives; used to hold a connection open without ever answering.
    mutating func waitForClose() {
        let peerClosed: Int16 = 0x2000 // POLLRDHUP (Linux; needs _GNU_SOURCE in C, so not imported)
        var descriptor = pollfd(fd: socket, events: peerClosed | Int16(POLLHUP), revents: 0)
        while true {
            let ready = poll(&descriptor, 1, 100)
            if ready > 0 && descriptor.revents & (peerClosed | Int16(POLLHUP) | Int16(POLLERR)) != 0 { return }
            if ready < 0 && errno != EINTR { return }
        }
    }

    static func writeAll(_ socket: Int32, _ data: Data) -> Bool {
        data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = send(socket, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return false }
                offset += written
            }
            return true
        }
    }
}
