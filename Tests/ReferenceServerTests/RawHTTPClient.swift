import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What a raw exchange produced: an HTTP answer, or how the connection ended without one.
enum RawOutcome: Equatable {
    /// A full HTTP answer.
    case answer(status: Int, headers: [String: String], body: Data)
    /// The server closed the connection without a complete answer (FIN after zero or more bytes).
    case closedWithoutAnswer
    /// The server reset the connection (ECONNRESET).
    case reset
    /// Nothing arrived before the read timeout while the connection stayed open.
    case timedOut

    /// The status of an answer, else nil.
    var status: Int? { if case .answer(let status, _, _) = self { status } else { nil } }
    /// The body of an answer, else empty.
    var body: Data { if case .answer(_, _, let body) = self { body } else { Data() } }
    /// The body parsed as a JSON object.
    var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
    /// A header of an answer (lower-case name).
    func header(_ name: String) -> String? { if case .answer(_, let headers, _) = self { headers[name.lowercased()] } else { nil } }
}

/// A deliberately small blocking HTTP/1.1 client over a POSIX socket, run on its own thread, so tests can send
/// exactly the bytes they want (bodies cut short, lying lengths) and observe resets and silent closes.
enum RawHTTPClient {
    /// Sends one request and reads one answer, on a dedicated thread (never blocking Swift's cooperative pool).
    static func exchange(port: Int, method: String, path: String, headers: [String: String] = [:], body: Data = Data(),
                         declaredLength: Int? = nil, sendLength: Bool = true, closeAfterSending: Bool = false, readTimeout: Double = 60) async -> RawOutcome {
        await withCheckedContinuation { continuation in
            let thread = Thread {
                continuation.resume(returning: blockingExchange(port: port, method: method, path: path, headers: headers, body: body,
                                                                declaredLength: declaredLength, sendLength: sendLength, closeAfterSending: closeAfterSending,
                                                                readTimeout: readTimeout))
            }
            thread.start()
        }
    }

    private static func blockingExchange(port: Int, method: String, path: String, headers: [String: String], body: Data,
                                         declaredLength: Int?, sendLength: Bool, closeAfterSending: Bool, readTimeout: Double) -> RawOutcome {
        let fd = connectSocket(port: port, readTimeout: readTimeout)
        guard fd >= 0 else { return .reset }
        defer { close(fd) }
        var allHeaders = headers
        if sendLength, !body.isEmpty || declaredLength != nil { allHeaders["Content-Length"] = String(declaredLength ?? body.count) }
        var bytes = requestHead(port: port, method: method, path: path, headers: allHeaders)
        bytes.append(body)
        guard sendAll(fd, bytes) else { return readAnswer(fd, method: method) }
        if closeAfterSending { shutdown(fd, Int32(SHUT_WR)) }
        return readAnswer(fd, method: method)
    }

    /// A connected TCP socket to 127.0.0.1:`port` whose reads time out after `readTimeout` seconds, or -1.
    static func connectSocket(port: Int, readTimeout: Double) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return -1 }
        var timeout = timeval(tv_sec: Int(readTimeout), tv_usec: Int((readTimeout - Double(Int(readTimeout))) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var keepAlive: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &keepAlive, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            return -1
        }
        return fd
    }

    /// The bytes of a request head with `Host` and `headers` (sorted by name).
    static func requestHead(port: Int, method: String, path: String, headers: [String: String]) -> Data {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        return Data(head.utf8)
    }

    static func sendAll(_ fd: Int32, _ data: Data) -> Bool {
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let sent = send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if sent <= 0 { return false }
                offset += sent
            }
            return true
        }
    }

    static func readAnswer(_ fd: Int32, method: String) -> RawOutcome {
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            if let outcome = parse(received, method: method) { return outcome }
            let count = recv(fd, &buffer, buffer.count, 0)
            if count > 0 {
                received.append(contentsOf: buffer[0..<count])
            } else if count == 0 {
                return parse(received, method: method) ?? .closedWithoutAnswer
            } else if errno == ECONNRESET {
                return .reset
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                return .timedOut
            } else if errno != EINTR {
                return .reset
            }
        }
    }

    /// Parses a complete answer (Content-Length framed, or no body for HEAD/204/304), else nil.
    private static func parse(_ data: Data, method: String) -> RawOutcome? {
        guard let end = data.range(of: Data("\r\n\r\n".utf8)) else { return nil }
        let headText = String(decoding: data[..<end.lowerBound], as: UTF8.self)
        var lines = headText.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { return nil }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let bodyStart = end.upperBound
        if method == "HEAD" || status == 204 || status == 304 { return .answer(status: status, headers: headers, body: Data()) }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        guard length >= 0, data.count - bodyStart >= length else { return nil }  // a negative length is no answer
        return .answer(status: status, headers: headers, body: Data(data[bodyStart..<(bodyStart + length)]))
    }
}
