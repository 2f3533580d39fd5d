import Foundation

/// What one transfer's result means for the sync engine: the single classification of every outcome.
public enum TransferOutcome: Sendable, Equatable {
    /// The server accepted the request (2xx).
    case success(status: Int)
    /// Worth retrying later: reset, DNS failure, timeout, 408, 429, 5xx; `retryAfter` from the server if given.
    case transient(reason: String, retryAfter: Duration?)
    /// The server could not be reached at all: "not now", no attempt is spent.
    case unreachable(reason: String)
    /// The server refused the credentials (401, 403): the run stops.
    case badCredentials(status: Int, message: String)
    /// Retrying will not help: other 4xx (with the server's message), TLS failures, unreadable file.
    case permanent(status: Int?, message: String)
    /// The caller cancelled the transfer.
    case cancelled
}

extension TransferOutcome {
    /// The statuses the contract calls transient.
    static let transientStatuses: Set<Int> = [408, 429, 500, 502, 503, 504]

    /// Classifies the result of one `HTTPClient.send`; `now` anchors an HTTP-date `Retry-After`.
    ///
    /// Decisions: connection refused and connect timeouts are `unreachable` (nothing reached the server);
    /// DNS failures, resets and stalls are `transient`; TLS, file and request errors are `permanent`.
    /// Statuses: 2xx success; 408, 429 and every 5xx transient (501 and 505 permanent: retrying cannot
    /// help); 401 and 403 bad credentials; other 4xx, 1xx and 3xx permanent.
    public static func classify(_ result: Result<HTTPResponse, TransportError>, now: Date) -> TransferOutcome {
        switch result {
        case .failure(let error):
            return classify(error)
        case .success(let response):
            return classify(response, now: now)
        }
    }

    private static func classify(_ error: TransportError) -> TransferOutcome {
        switch error.kind {
        case .cancelled:
            return .cancelled
        case .connectionRefused, .connectTimeout:
            return .unreachable(reason: error.message)
        case .dnsFailure, .connectionLost, .timeout, .other:
            return .transient(reason: error.message, retryAfter: nil)
        default: // .tls, .fileUnreadable, .invalidRequest, .setupFailed
            return .permanent(status: nil, message: error.message)
        }
    }

    private static func classify(_ response: HTTPResponse, now: Date) -> TransferOutcome {
        let status = response.status
        let message = describe(response)
        if (200..<300).contains(status) {
            return .success(status: status)
        }
        if status == 401 || status == 403 {
            return .badCredentials(status: status, message: message)
        }
        if isTransient(status: status) {
            let retryAfter = response.header("retry-after").flatMap { parseRetryAfter($0, now: now) }
            return .transient(reason: message, retryAfter: retryAfter)
        }
        return .permanent(status: status, message: message)
    }

    /// 408, 429 and the server errors worth retrying (every 5xx but 501 Not Implemented and 505 Version Not Supported).
    private static func isTransient(status: Int) -> Bool {
        transientStatuses.contains(status) || ((500..<600).contains(status) && status != 501 && status != 505)
    }

    /// "HTTP 409: <server message>", the body when it is a short text, or just "HTTP 409".
    private static func describe(_ response: HTTPResponse) -> String {
        if let message = response.serverMessage {
            return "HTTP \(response.status): \(message.prefix(500))"
        }
        if response.body.count <= 200, let text = String(data: response.body, encoding: .utf8) {
            let line = text.trimmingCharacters(in: .whitespacesAndNewlines)
            if !line.isEmpty && !line.contains("<") { return "HTTP \(response.status): \(line)" }
        }
        return "HTTP \(response.status)"
    }
}
