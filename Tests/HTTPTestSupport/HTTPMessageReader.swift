import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Reads whole HTTP/1.1 messages from a socket, keeping their bytes as they came (to relay them unchanged): a head,
/// then a body by `Content-Length`, by chunks, or (an answer without either) until the connection closes.
struct HTTPMessageReader {
    /// One message.
    struct Message {
        /// Every byte of it, head and body.
        var raw: Data
        /// The request's method (empty for an answer).
        var method: String
        /// The request's target (empty for an answer).
        var target: String
        /// The answer's status (0 for a request).
        var status: Int
        /// Whether the connection ends after it (`Connection: close`, or a body read until the close).
        var closesConnection: Bool
    }

    let socket: Int32
    private var buffer: [UInt8] = []
    private var closed = false

    init(socket: Int32) { self.socket = socket }

    /// The next message, or nil when the connection ended (or broke) before a whole one came. For an answer,
    /// `requestMethod` says whether it can have a body (not to `HEAD`); `1xx` interim answers are kept with the
    /// final one.
    mutating func readMessage(isRequest: Bool, requestMethod: String?) -> Message? {
        var raw = Data()
        while true {
            guard let head = readHead() else { return nil }
            raw.append(contentsOf: head)
            let lines = String(decoding: head, as: UTF8.self).components(separatedBy: "\r\n")
            let first = lines[0].split(separator: " ", maxSplits: 2).map(String.init)
            guard first.count >= 2 else { return nil }
            var headers: [String: String] = [:]
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            let status = isRequest ? 0 : Int(first[1]) ?? 0
            if !isRequest, (100..<200).contains(status), status != 101 { continue } // interim: the final answer follows
            let closes = headers["connection"]?.lowercased().contains("close") == true
            let noBody = !isRequest && (requestMethod == "HEAD" || status == 204 || status == 304)
            if noBody {
                return Message(raw: raw, method: "", target: "", status: status, closesConnection: closes)
            }
            if headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
                guard let body = readChunked() else { return nil }
                raw.append(body)
            } else if let length = headers["content-length"].flatMap({ Int($0) }) {
                guard length >= 0, let body = read(count: length) else { return nil }
                raw.append(body)
            } else if !isRequest {
                raw.append(readToClose())
                return Message(raw: raw, method: "", target: "", status: status, closesConnection: true)
            }
            return Message(raw: raw, method: isRequest ? first[0] : "", target: isRequest ? first[1] : "",
                           status: status, closesConnection: closes)
        }
    }

    private mutating func fill() -> Bool {
        guard !closed else { return false }
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        let count = chunk.withUnsafeMutableBytes { Glibc.read(socket, $0.baseAddress, $0.count) }
        guard count > 0 else {
            closed = true
            return false
        }
        buffer.append(contentsOf: chunk[0..<count])
        return true
    }

    private mutating func readHead() -> [UInt8]? {
        let terminator: [UInt8] = [13, 10, 13, 10]
        while true {
            if let end = buffer.firstRange(of: terminator) {
                let bytes = Array(buffer[..<end.upperBound])
                buffer.removeSubrange(..<end.upperBound)
                return bytes
            }
            guard fill() else { return nil }
        }
    }

    private mutating func read(count: Int) -> Data? {
        while buffer.count < count {
            guard fill() else { return nil }
        }
        let bytes = Data(buffer[0..<count])
        buffer.removeFirst(count)
        return bytes
    }

    private mutating func readLine() -> Data? {
        while true {
            if let end = buffer.firstRange(of: [13, 10]) {
                let line = Data(buffer[..<end.upperBound])
                buffer.removeSubrange(..<end.upperBound)
                return line
            }
            guard fill() else { return nil }
        }
    }

    /// A chunked body as it came: chunks, the last chunk and the trailer section.
    private mutating func readChunked() -> Data? {
        var raw = Data()
        while true {
            guard let sizeLine = readLine() else { return nil }
            raw.append(sizeLine)
            let text = String(decoding: sizeLine, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard let size = Int(text.split(separator: ";").first.map(String.init) ?? "", radix: 16), size >= 0 else { return nil }
            if size == 0 {
                while true { // trailers, up to the empty line
                    guard let line = readLine() else { return nil }
                    raw.append(line)
                    if line.count == 2 { return raw }
                }
            }
            guard let chunk = read(count: size + 2) else { return nil }
            raw.append(chunk)
        }
    }

    private mutating func readToClose() -> Data {
        while fill() {}
        let bytes = Data(buffer)
        buffer.removeAll()
        return bytes
    }
}
