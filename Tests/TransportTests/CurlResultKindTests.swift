import Testing
@testable import Transport

@Suite("CurlTransfer.kind(curlCode:…): what each libcurl result code means, without I/O")
struct CurlResultKindTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var code: Int
        var nameLookupDone = true
        var requestSent = true
        var kind: TransportError.Kind
        var testDescription: String { "curl \(code) lookup=\(nameLookupDone) sent=\(requestSent) → \(kind)" }
    }

    static let table: [Row] = [
        Row(code: 7, kind: .connectionRefused),                                      // COULDNT_CONNECT
        Row(code: 6, kind: .dnsFailure), Row(code: 5, kind: .dnsFailure),            // COULDNT_RESOLVE_HOST / _PROXY
        Row(code: 28, nameLookupDone: false, requestSent: false, kind: .dnsFailure), // timed out while resolving
        Row(code: 28, nameLookupDone: true, requestSent: false, kind: .connectTimeout),
        Row(code: 28, nameLookupDone: true, requestSent: true, kind: .timeout),      // stalled after sending
        Row(code: 35, requestSent: false, kind: .connectionLost),                    // SSL_CONNECT_ERROR: handshake broke
        Row(code: 55, kind: .connectionLost), Row(code: 56, kind: .connectionLost), Row(code: 52, kind: .connectionLost),
        Row(code: 18, kind: .connectionLost), Row(code: 92, kind: .connectionLost),
        Row(code: 51, kind: .tls), Row(code: 60, kind: .tls), Row(code: 58, kind: .tls), Row(code: 77, kind: .tls),
        Row(code: 80, kind: .tls), Row(code: 82, kind: .tls), Row(code: 83, kind: .tls), Row(code: 90, kind: .tls),
        Row(code: 91, kind: .tls),
        Row(code: 26, kind: .fileUnreadable), Row(code: 42, kind: .fileUnreadable),
        Row(code: 3, kind: .invalidRequest), Row(code: 1, kind: .invalidRequest), Row(code: 43, kind: .invalidRequest),
        Row(code: 8, kind: .malformedAnswer),                                        // WEIRD_SERVER_REPLY
        Row(code: 27, requestSent: true, kind: .malformedAnswer),                    // a header over libcurl's limit
        Row(code: 27, requestSent: false, kind: .other),                             // out of memory, really
        Row(code: 23, kind: .other), Row(code: 9999, kind: .other), Row(code: -1, kind: .other),
    ]

    @Test("Each code maps to its kind", arguments: table)
    func mapping(row: Row) {
        #expect(CurlTransfer.kind(curlCode: row.code, nameLookupDone: row.nameLookupDone, requestSent: row.requestSent) == row.kind)
    }

    @Test("libcurl's words for its insides are not a failure's reason: a body it cannot send again is a closed connection")
    func ownWords() {
        let rewind = CurlTransfer.detail(curlCode: 65, kind: .connectionLost, errorText: "seek callback returned error 1") {
            "Send failed since rewinding of the data stream failed"
        }
        #expect(rewind == "the connection closed while the request's body was being sent")
        #expect(CurlTransfer.kind(curlCode: 65, nameLookupDone: true, requestSent: true) == .connectionLost, "and retried")
        #expect(CurlTransfer.detail(curlCode: 7, kind: .connectionRefused, errorText: "Failed to connect to h port 9") { "" }
            == "Failed to connect to h port 9")
        #expect(CurlTransfer.detail(curlCode: 7, kind: .connectionRefused, errorText: "") { "Couldn't connect to server" }
            == "Couldn't connect to server")
        #expect(CurlTransfer.detail(curlCode: 8, kind: .malformedAnswer, errorText: "Weird server reply") { "" }
            .hasPrefix("the server's answer is not HTTP that can be read"))
    }

    @Test("A failed TLS handshake is retried; a certificate that does not verify is not")
    func handshakeVersusVerification() {
        let handshake = TransportError(kind: CurlTransfer.kind(curlCode: 35, nameLookupDone: true, requestSent: false), message: "m")
        let certificate = TransportError(kind: CurlTransfer.kind(curlCode: 60, nameLookupDone: true, requestSent: false), message: "m")
        #expect(TransferOutcome.classify(.failure(handshake), now: .now) == .transient(reason: "m", retryAfter: nil))
        #expect(TransferOutcome.classify(.failure(certificate), now: .now) == .permanent(status: nil, message: "m"))
    }
}

@Suite("CurlTransfer.shouldReport: progress at most every 25 ms, the completing report always, nothing twice")
struct ProgressReportTests {
    static let ms: UInt64 = 1_000_000

    @Test("a quick upload reports only its completion; a slow one every 25 ms; repeats and empty reports never")
    func decisions() {
        // 5 ms into a 256 KiB upload: too soon for 64 KiB, but the whole body always goes.
        #expect(!CurlTransfer.shouldReport(sent: 65_536, total: 262_144, lastSent: -1, lastAt: 0, now: 5 * Self.ms))
        #expect(CurlTransfer.shouldReport(sent: 262_144, total: 262_144, lastSent: -1, lastAt: 0, now: 5 * Self.ms))
        // A slow upload: a report once 25 ms have passed since the last.
        #expect(!CurlTransfer.shouldReport(sent: 100, total: 1_000, lastSent: 50, lastAt: 100 * Self.ms, now: 124 * Self.ms))
        #expect(CurlTransfer.shouldReport(sent: 100, total: 1_000, lastSent: 50, lastAt: 100 * Self.ms, now: 125 * Self.ms))
        // Nothing new, or nothing at all, is never reported.
        #expect(!CurlTransfer.shouldReport(sent: 1_000, total: 1_000, lastSent: 1_000, lastAt: 0, now: 900 * Self.ms))
        #expect(!CurlTransfer.shouldReport(sent: 0, total: 0, lastSent: -1, lastAt: 0, now: 900 * Self.ms))
        // Unknown total (0): progress by time alone.
        #expect(CurlTransfer.shouldReport(sent: 10, total: 0, lastSent: -1, lastAt: 0, now: 30 * Self.ms))
    }
}
