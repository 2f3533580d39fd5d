import Foundation

/// What one transfer's result means for the sync engine: the single classification of every outcome.
public enum TransferOutcome: Sendable, Equatable {
    /// The server accepted the request (2xx).
    case success(status: Int)
    /// Worth retrying later: reset, DNS failure, timeout, 408, 429, 5xx; `retryAfter` from the server if given.
    case transient(reason: String, retryAfter: Duration?)
    /// The server refused the credentials (401, 403): the run stops.
    case badCredentials(status: Int, message: String)
    /// An answer that is not the server's: a redirect (any 3xx: redirects are not followed) where the server was
    /// expected, a captive portal's or a proxy's. It says nothing about the request, which a later run sends again
    /// once the network lets it through; the message names where the answer pointed.
    case notTheServer(status: Int, message: String)
    /// Retrying will not help: other 4xx (with the server's message), TLS failures, unreadable file.
    case permanent(status: Int?, message: String)
    /// The caller cancelled the transfer.
    case cancelled
}

extension TransferOutcome {
    /// The statuses the contract calls transient, and the two 4xx whose RFCs say the same request may succeed when
    /// sent again: 421 Misdirected Request (on another connection, RFC 9110) and 425 Too Early (after the handshake,
    /// RFC 8470). Neither may park a recipe as failed for good.
    static let transientStatuses: Set<Int> = [408, 421, 425, 429, 500, 502, 503, 504]

    /// Classifies the result of one `HTTPClient.send`; `now` anchors an HTTP-date `Retry-After`.
    ///
    /// Decisions: connection refused, connect timeouts, DNS failures, resets, stalls and malformed answers (a proxy
    /// or portal in the way, perhaps for a while) are `transient` (an attempt was made);
    /// TLS, file, request and oversized-answer errors are `permanent`.
    /// Statuses: 2xx success; 408, 421, 425, 429 and every 5xx transient (501 and 505 permanent: retrying cannot
    /// help); every 3xx not the server (redirects are not followed: an answer sending the request elsewhere is a
    /// captive portal's or a proxy's, which a later run may get past); 401 and 403 bad credentials; other 4xx and 1xx
    /// permanent.
    /// Every message keeps at most 500 characters of the server's text, without control characters, and with
    /// each occurrence of `token` (pass the bearer token the request carried) replaced by `<token>`.
    public static func classify(_ result: Result<HTTPResponse, TransportError>, now: Date,
                                redacting token: String? = nil) -> TransferOutcome {
        switch result {
        case .failure(let error):
            return classify(error, redacting: token)
        case .success(let response):
            return classify(response, now: now, redacting: token)
        }
    }

    private static func classify(_ error: TransportError, redacting token: String?) -> TransferOutcome {
        let message = redact(error.message, token: token)
        switch error.kind {
        case .cancelled:
            return .cancelled
        case .connectionRefused, .connectTimeout, .dnsFailure, .connectionLost, .timeout, .malformedAnswer, .other:
            return .transient(reason: message, retryAfter: nil)
        default: // .tls, .fileUnreadable, .invalidRequest, .setupFailed, .responseTooLarge
            return .permanent(status: nil, message: message)
        }
    }

    private static func classify(_ response: HTTPResponse, now: Date, redacting token: String?) -> TransferOutcome {
        let status = response.status
        let message = describe(response, redacting: token)
        if (200..<300).contains(status) {
            return .success(status: status)
        }
        if status == 401 || status == 403 {
            return .badCredentials(status: status, message: message)
        }
        if (300..<400).contains(status) {
            return .notTheServer(status: status, message: describeRedirect(response, redacting: token))
        }
        if isTransient(status: status) {
            let retryAfter = response.header("retry-after").flatMap { parseRetryAfter($0, now: now) }
            return .transient(reason: message, retryAfter: retryAfter)
        }
        return .permanent(status: status, message: message)
    }

    /// 408, 421, 425, 429 and the server errors worth retrying (every 5xx but 501 Not Implemented and 505 Version Not Supported).
    private static func isTransient(status: Int) -> Bool {
        transientStatuses.contains(status) || ((500..<600).contains(status) && status != 501 && status != 505)
    }

    /// "HTTP 409: <server message>", the body when it is a short text, or just "HTTP 409"; control characters
    /// (which could move a terminal's cursor or forge log lines) become spaces.
    /// The token is replaced before the text is shortened, so no prefix of it survives the cut.
    private static func describe(_ response: HTTPResponse, redacting token: String?) -> String {
        if let message = response.serverMessage {
            let line = printable(String(redact(message, token: token).prefix(500)))
            if !line.isEmpty { return "HTTP \(response.status): \(line)" }
        }
        if response.body.count <= 200, let text = String(data: response.body, encoding: .utf8) {
            let line = printable(redact(text, token: token))
            if !line.isEmpty && !line.contains("<") { return "HTTP \(response.status): \(line)" }
        }
        return "HTTP \(response.status)"
    }

    /// "HTTP 302 to <Location>, not the server's answer: a captive portal or a proxy? …": where a redirect pointed
    /// (at most 300 characters of it, printable, without the token), so that a person sees the portal.
    private static func describeRedirect(_ response: HTTPResponse, redacting token: String?) -> String {
        let location = response.header("location").map { printable(String(redact($0, token: token).prefix(300))) }
        let target = location.flatMap { $0.isEmpty ? nil : " to \($0)" } ?? " without a Location"
        return "HTTP \(response.status)\(target), not the server's answer: a captive portal or a proxy in the way? "
            + "(log in to the network, or check server.url); sent again by the next sync"
    }

    /// `text` with every control character (C0, DEL, C1) replaced by a space, trimmed.
    private static func printable(_ text: String) -> String {
        let scalars = text.unicodeScalars.map { scalar in
            scalar.properties.generalCategory == .control ? " " : scalar
        }
        var cleaned = String.UnicodeScalarView()
        cleaned.append(contentsOf: scalars)
        return String(cleaned).trimmingCharacters(in: .whitespaces)
    }

    /// Tokens this long are hidden wherever they occur: no word of a message holds one by chance.
    public static let unmistakableTokenLength = 16

    /// `message` with `token` replaced by `<token>`. A token of `unmistakableTokenLength` characters or more is
    /// replaced wherever it occurs; a shorter one (which `config set` no longer takes, but a file or the environment
    /// may hold) only as a whole value: with no ASCII letter or digit right before or after it, so that the token `T`
    /// is not found inside "PUT" while `Bearer T`, `"T"`, `token=T&` and `T.` are hidden (any other neighbour is a
    /// boundary: hiding too much is safe).
    public static func redact(_ message: String, token: String?) -> String {
        guard let token, !token.isEmpty else { return message }
        if token.count >= unmistakableTokenLength { return message.replacingOccurrences(of: token, with: "<token>") }
        let text = Array(message.unicodeScalars)
        let value = Array(token.unicodeScalars)
        func tokenCharacter(_ scalar: Unicode.Scalar) -> Bool {
            ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
        }
        var out = String.UnicodeScalarView()
        var index = 0
        while index < text.count {
            let end = index + value.count
            if end <= text.count, text[index..<end].elementsEqual(value),
               index == 0 || !tokenCharacter(text[index - 1]), end == text.count || !tokenCharacter(text[end]) {
                out.append(contentsOf: "<token>".unicodeScalars)
                index = end
            } else {
                out.append(text[index])
                index += 1
            }
        }
        return String(out)
    }
}
