import Foundation
import Locking
import SystemFiles

/// The `--request-log` file: one JSON object per line, written with one `write(2)` per line so readers see whole lines.
public final class RequestLog: Sendable {
    /// One line of the log.
    public struct Entry: Codable, Sendable, Equatable {
        /// When the request head arrived (ISO 8601, milliseconds).
        public var start: String
        /// When the answer was ready or the connection was dropped.
        public var end: String
        /// The HTTP method.
        public var method: String
        /// The request path (without the query).
        public var path: String
        /// The status sent, or nil when no answer was sent (reset, lost acknowledgement, stall, client gone).
        public var status: Int?
        /// Request body bytes the server read.
        public var bytesReceived: Int64
        /// Whether the whole announced body was received (true when there was none).
        public var bodyComplete: Bool
        /// The fault applied, if any (e.g. `status=503`, `lost-ack`, `latency=200ms`).
        public var fault: String?

        private enum CodingKeys: String, CodingKey {
            case start, end, method, path, status, bytesReceived, bodyComplete, fault
        }

        /// Encodes every key, writing `null` for a missing status or fault so each line has the same shape.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(start, forKey: .start)
            try container.encode(end, forKey: .end)
            try container.encode(method, forKey: .method)
            try container.encode(path, forKey: .path)
            try container.encode(status, forKey: .status)
            try container.encode(bytesReceived, forKey: .bytesReceived)
            try container.encode(bodyComplete, forKey: .bodyComplete)
            try container.encode(fault, forKey: .fault)
        }
    }

    private let descriptor: Locked<Int32>
    /// The log file's path.
    private let path: String

    /// Opens (creating or appending to) the log file.
    public init(path: String) throws(ServerSetupError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            let failure = ErrnoError(errno, .open, path: path)
            throw ServerSetupError("Cannot open the request log \(path): \(failure.reason). Check the directory exists and is writable.")
        }
        descriptor = Locked(fd)
        self.path = path
    }

    deinit {
        descriptor.withLock { fd in
            if fd >= 0 { close(fd) }
        }
    }

    /// Appends one entry as a JSON line.
    public func append(_ entry: Entry) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard var line = try? encoder.encode(entry) else { return }
        line.append(UInt8(ascii: "\n"))
        descriptor.withLock { fd in
            line.withUnsafeBytes { raw in try? writeAll(raw, to: fd, path: path) }  // a log that fails loses the line
        }
    }

    /// Formats a date for the log (UTC, millisecond precision).
    static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}

/// A failure to start the server (bad data directory, port in use, unwritable log): says what to do.
public struct ServerSetupError: Error, LocalizedError, Sendable {
    /// What went wrong and what to do.
    public var message: String

    /// Creates an error with its message.
    public init(_ message: String) { self.message = message }

    /// The message.
    public var errorDescription: String? { message }
}
