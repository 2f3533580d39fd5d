import Foundation

/// A transport failure: the request got no HTTP answer (connection refused, DNS, reset, timeout, TLS,
/// unreadable file, cancellation…). Its message never contains the bearer token.
public struct TransportError: Error, LocalizedError, Sendable, Equatable {
    /// What kind of failure this is; `TransferOutcome.classify` decides from it alone.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case connectionRefused, connectTimeout, dnsFailure, connectionLost, timeout
            case tls, fileUnreadable, invalidRequest, cancelled, halted, setupFailed, responseTooLarge, malformedAnswer
            case other
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// Nobody accepted the TCP connection (refused, host or network unreachable).
        public static let connectionRefused = Kind(.connectionRefused)
        /// The TCP (or proxy) connection could not be opened within the connect timeout.
        public static let connectTimeout = Kind(.connectTimeout)
        /// The host name could not be resolved.
        public static let dnsFailure = Kind(.dnsFailure)
        /// The connection broke after it was opened (reset, closed early, nothing received).
        public static let connectionLost = Kind(.connectionLost)
        /// The transfer stalled below the low-speed limit or exceeded a time limit after connecting.
        public static let timeout = Kind(.timeout)
        /// The TLS handshake failed or the peer's certificate or host name did not verify.
        public static let tls = Kind(.tls)
        /// The file to upload could not be opened or read, or changed size while being sent.
        public static let fileUnreadable = Kind(.fileUnreadable)
        /// The request itself is malformed (bad URL, unsupported scheme, bad header).
        public static let invalidRequest = Kind(.invalidRequest)
        /// The transfer was cancelled by the caller (or the client shut down).
        public static let cancelled = Kind(.cancelled)
        /// Not sent: an earlier answer had one of the client's `haltingStatuses` (credentials refused).
        public static let halted = Kind(.halted)
        /// The client could not be set up (libcurl or the CA bundle).
        public static let setupFailed = Kind(.setupFailed)
        /// The server's answer was larger than the client keeps in memory (`HTTPClient.maxResponseBytes`).
        public static let responseTooLarge = Kind(.responseTooLarge)
        /// The server's answer is not HTTP that can be read: not HTTP at all, or a header line or header section
        /// beyond libcurl's limit (100 KiB), which libcurl reports as "out of memory".
        public static let malformedAnswer = Kind(.malformedAnswer)
        /// Any other libcurl failure.
        public static let other = Kind(.other)

        /// The kind's name, e.g. `connectionRefused`.
        public var description: String { base.rawValue }
    }

    /// What kind of failure this is.
    public var kind: Kind
    /// What went wrong, in words, without any token.
    public var message: String
    /// The libcurl result code when libcurl reported the failure (https://curl.se/libcurl/c/libcurl-errors.html).
    public var curlCode: Int?

    /// Creates an error.
    public init(kind: Kind, message: String, curlCode: Int? = nil) {
        self.kind = kind
        self.message = message
        self.curlCode = curlCode
    }

    /// A cancellation error.
    public static func cancelled(_ message: String = "the transfer was cancelled") -> TransportError {
        TransportError(kind: .cancelled, message: message)
    }

    /// What went wrong on the wire (or in setting the client up), in words; what it means for the caller's work and
    /// what to do is the caller's to say.
    public var errorDescription: String? { message }
}
