import Foundation
import Testing
import Transport

@Suite("TransferOutcome.classify: every outcome, without I/O")
struct TransferOutcomeTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    private func classify(_ status: Int, headers: [String: String] = [:], body: String = "") -> TransferOutcome {
        TransferOutcome.classify(.success(HTTPResponse(status: status, headers: headers, body: Data(body.utf8))), now: now)
    }

    private func classify(_ kind: TransportError.Kind) -> TransferOutcome {
        TransferOutcome.classify(.failure(TransportError(kind: kind, message: "m")), now: now)
    }

    @Test("2xx statuses are success with their status", arguments: [200, 201, 204])
    func success(status: Int) {
        #expect(classify(status) == .success(status: status))
    }

    @Test("408, 429, 500, 502, 503 and 504 are transient without a Retry-After", arguments: [408, 429, 500, 502, 503, 504])
    func transientStatuses(status: Int) {
        guard case .transient(_, let retryAfter) = classify(status) else {
            Issue.record("\(status) was not transient: \(classify(status))")
            return
        }
        #expect(retryAfter == nil)
    }

    @Test("Retry-After in seconds on a 503 becomes the retry delay")
    func retryAfterSeconds() {
        guard case .transient(_, let retryAfter) = classify(503, headers: ["Retry-After": "120"]) else {
            Issue.record("503 was not transient")
            return
        }
        #expect(retryAfter == .seconds(120))
    }

    @Test("Retry-After as an HTTP date on a 429 is measured from now")
    func retryAfterDate() {
        // now + 90 s, written as an IMF-fixdate.
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let date = formatter.string(from: now.addingTimeInterval(90))
        guard case .transient(_, let retryAfter) = classify(429, headers: ["retry-after": date]) else {
            Issue.record("429 was not transient")
            return
        }
        #expect(retryAfter == .seconds(90))
    }

    @Test("401 and 403 are bad credentials carrying the server's message", arguments: [401, 403])
    func badCredentials(status: Int) {
        let outcome = classify(status, body: #"{"error":"unauthorized","message":"token not accepted"}"#)
        #expect(outcome == .badCredentials(status: status, message: "HTTP \(status): token not accepted"))
    }

    @Test("421 and 425, which the same request may get past when sent again, are transient", arguments: [421, 425])
    func retryableClientErrors(status: Int) {
        #expect(classify(status) == .transient(reason: "HTTP \(status)", retryAfter: nil))
    }

    @Test("Other 4xx are permanent with the server's message", arguments: [400, 404, 409, 413, 422])
    func permanentClientErrors(status: Int) {
        let outcome = classify(status, body: #"{"error":"invalid","message":"image hash does not match"}"#)
        #expect(outcome == .permanent(status: status, message: "HTTP \(status): image hash does not match"))
    }

    @Test("A 4xx without a JSON body is permanent and says its status")
    func permanentWithoutMessage() {
        #expect(classify(410) == .permanent(status: 410, message: "HTTP 410"))
    }

    @Test("501 and 505 are permanent: retrying cannot help", arguments: [501, 505])
    func permanentServerErrors(status: Int) {
        #expect(classify(status) == .permanent(status: status, message: "HTTP \(status)"))
    }

    @Test("3xx answers (a captive portal's redirect: not followed) are not the server's and name where they point, without the token",
          arguments: [300, 301, 302, 303, 304, 307, 308])
    func redirectsAreTransient(status: Int) {
        let token = "portal-token-0123456789"
        let outcome = TransferOutcome.classify(
            .success(HTTPResponse(
                status: status, headers: ["Location": "http://portal.example/login?next=\(token)\u{1b}[2J"],
                body: Data("<html>Sign in</html>".utf8))),
            now: now, redacting: token)
        #expect(outcome == .notTheServer(
            status: status,
            message: "HTTP \(status) to http://portal.example/login?next=<token> [2J, not the server's answer: a captive "
                + "portal or a proxy in the way? (log in to the network, or check server.url); sent again by the next sync"))
        guard case .notTheServer(_, let reason) = classify(status) else {
            Issue.record("\(status) without a Location: \(classify(status))")
            return
        }
        #expect(reason.hasPrefix("HTTP \(status) without a Location, not the server's answer"), "\(reason)")
    }

    @Test("Refused connections, connect timeouts, DNS failures, lost connections, stalls and other curl failures are transient",
          arguments: [TransportError.Kind.connectionRefused, .connectTimeout, .dnsFailure, .connectionLost, .timeout, .other])
    func transientFailures(kind: TransportError.Kind) {
        #expect(classify(kind) == .transient(reason: "m", retryAfter: nil))
    }

    @Test("TLS failures, unreadable files and malformed requests are permanent without a status",
          arguments: [TransportError.Kind.tls, .fileUnreadable, .invalidRequest, .setupFailed, .responseTooLarge])
    func permanentFailures(kind: TransportError.Kind) {
        #expect(classify(kind) == .permanent(status: nil, message: "m"))
    }

    @Test("A server message that echoes the token is redacted and loses its control characters", arguments: [400, 401, 503])
    func serverMessageRedacted(status: Int) {
        let token = "tok-echo-9f3a"
        let body = #"{"error":"bad","message":"token \#(token) rejected\u001b[2J\r\nForged: line\u0007"}"#
        let outcome = TransferOutcome.classify(.success(HTTPResponse(status: status, body: Data(body.utf8))), now: now,
                                               redacting: token)
        let message: String
        switch outcome {
        case .permanent(_, let text), .badCredentials(_, let text), .transient(let text, _): message = text
        default: Issue.record("unexpected \(outcome)"); return
        }
        #expect(!message.contains(token))
        #expect(message.hasPrefix("HTTP \(status): token <token> rejected"))
        #expect(!message.unicodeScalars.contains { $0.properties.generalCategory == .control })
    }

    @Test("A token that would be cut at 500 characters leaves no prefix of itself behind")
    func longServerMessageRedactedBeforeCut() {
        let token = "tok-long-0123456789"
        let body = #"{"message":"\#(String(repeating: "x", count: 490))\#(token)"}"#
        let outcome = TransferOutcome.classify(.success(HTTPResponse(status: 422, body: Data(body.utf8))), now: now,
                                               redacting: token)
        guard case .permanent(_, let message) = outcome else { Issue.record("not permanent: \(outcome)"); return }
        #expect(!message.contains("tok-long"))
        #expect(message.hasSuffix("<token>"))
    }

    @Test("A transport error's message is redacted too")
    func transportErrorRedacted() {
        let error = TransportError(kind: .timeout, message: "GET http://h/tok-abc failed")
        #expect(TransferOutcome.classify(.failure(error), now: now, redacting: "tok-abc")
                == .transient(reason: "GET http://h/<token> failed", retryAfter: nil))
    }

    @Test("A short token is hidden as a whole value only, never inside a word; a long one wherever it occurs")
    func wholeValues() {
        #expect(TransferOutcome.redact("PUT http://h/v1/recipes/T failed: T.", token: "T")
                == "PUT http://h/v1/recipes/<token> failed: <token>.")
        #expect(TransferOutcome.redact(#"Bearer T, "T", token=T&x=1"#, token: "T") == #"Bearer <token>, "<token>", token=<token>&x=1"#)
        #expect(TransferOutcome.redact("STOP at TT", token: "T") == "STOP at TT")
        let long = "kitchen-secret-2026"
        #expect(TransferOutcome.redact("x\(long)y", token: long) == "x<token>y")
    }

    @Test("A cancelled transfer is classified as cancelled")
    func cancelled() {
        #expect(classify(.cancelled) == .cancelled)
    }

    @Test("Response headers are looked up case-insensitively; repeated names are joined")
    func headerLookup() {
        let response = HTTPResponse(status: 200, headers: ["Retry-After": "5", "X-A": "1", "x-a": "2"])
        #expect(response.header("retry-after") == "5")
        #expect(response.header("RETRY-AFTER") == "5")
        #expect(response.header("x-a")?.split(separator: ",").count == 2)
        #expect(response.header("missing") == nil)
    }

    @Test("A transport error's description says what happened on the wire, nothing about its caller's work")
    func errorDescriptionIsTheWire() {
        let error = TransportError(kind: .tls, message: "certificate rejected")
        #expect(error.errorDescription == "certificate rejected")
    }
}
