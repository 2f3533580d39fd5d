import Foundation
import Synchronization
internal import CCurl

/// One request in flight: its easy handle, its body source, the answer being collected and the caller waiting for it.
///
/// Built on the caller's task, then owned by the transfer loop: after `TransferLoop.submit` only the loop's thread
/// (and libcurl callbacks on it) touches it.
final class CurlTransfer: @unchecked Sendable {
    // @unchecked Sendable: the mutable state is confined — written by the submitting task before submission
    // (which happens-before the loop reads it, through the loop's inbox lock), afterwards only by the loop's thread;
    // `cancelRequested`, the one exception, is an Atomic.

    /// The transfer's identity, used to cancel it.
    let id: UInt64
    /// The easy handle, owned here and freed with the transfer.
    let easy: CurlEasy
    /// What libcurl reads the body from, if there is one.
    let upload: UploadBody?
    /// The request, for error messages.
    let method: HTTPMethod
    /// The URL, for error messages.
    let url: String
    /// Whether it starts before the other waiting transfers (`HTTPRequest.startsAhead`).
    let startsAhead: Bool
    /// Replaces the token in any message that might quote it.
    private let redaction: String?
    /// Called on the loop's thread as the body goes out.
    private let progress: (@Sendable (TransferProgress) -> Void)?
    private var lastReported: Int64 = -1
    /// When the last progress report went out (at first: when the transfer was set up).
    private var lastReportedAt: UInt64 = CurlTransfer.monotonicNanoseconds()

    /// Where the finished result goes; set before submission, consumed once.
    var continuation: CheckedContinuation<Result<HTTPResponse, TransportError>, Never>?
    private var body = Data()
    private var headers: [String: String] = [:]
    /// Set when the answer outgrew `maxResponseBytes` and the write callback stopped the transfer.
    private var responseTooLarge = false
    /// Where a successful answer's body goes instead of memory, if anywhere.
    private let sink: (any ResponseBodySink)?
    /// Whether this answer's body goes to `sink` (decided at its first bytes, by the status: only a `2xx` body does).
    private var streamsToSink: Bool?
    /// Set when `sink` refused bytes and the write callback stopped the transfer.
    private var sinkRefused = false
    /// The request's `answerDeadline` in nanoseconds, if it has one.
    let answerDeadline: UInt64?
    /// When the first line of the answer arrived, on the monotonic clock: the answer deadline counts from here (the
    /// moment a request's last byte leaves is not known here: the kernel may still hold much of its body).
    private(set) var answerStartedAt: UInt64?

    /// libcurl's upload buffer unless told otherwise, and the one this client asks for when a body is larger (each
    /// easy handle that sends such a body allocates one: a 1,000-recipe sync's peak memory grew by about 1 MB).
    static let defaultUploadBuffer: Int64 = 64 << 10
    static let largeUploadBuffer = 512 << 10

    /// The most bytes of an answer's body kept in memory; a larger answer fails as `.responseTooLarge`.
    static let maxResponseBytes = 16 << 20

    /// Whether the request goes to another origin than the token's (`HTTPClientConfiguration.credentials`): it
    /// carries no token, and its answer cannot halt the client.
    private(set) var goesElsewhere = false

    /// Set (from any thread) once the caller cancelled; the loop then never starts the transfer.
    let cancelRequested = Atomic<Bool>(false)

    /// Prepares the easy handle for `request` with the client's settings.
    init(id: UInt64, request: HTTPRequest, settings: ClientSettings, easy reused: CurlEasy? = nil,
         progress: (@Sendable (TransferProgress) -> Void)?, sink: (any ResponseBodySink)? = nil) throws(TransportError) {
        self.id = id
        self.sink = sink
        self.method = request.method
        startsAhead = request.startsAhead
        self.url = request.url
        self.redaction = settings.bearerToken
        self.progress = progress
        self.answerDeadline = request.answerDeadline.map { UInt64(max(0, $0.milliseconds)) * 1_000_000 }
        switch request.body {
        case .empty: upload = request.method.sendsBody ? UploadBody(data: Data()) : nil
        case .data(let data, _): upload = UploadBody(data: data)
        case .file(let path, _): upload = try UploadBody(filePath: path)
        case .filePart(let path, let offset, _): upload = try UploadBody(filePath: path, from: offset)
        }
        upload?.rewindable = request.resendsWhole
        if let reused {
            try reused.reset()
            easy = reused
        } else {
            easy = try CurlEasy()
        }
        try configure(request, settings)
    }

    private func configure(_ request: HTTPRequest, _ settings: ClientSettings) throws(TransportError) {
        guard request.url.lowercased().hasPrefix("http://") || request.url.lowercased().hasPrefix("https://") else {
            throw TransportError(kind: .invalidRequest, message: "cannot send to \(request.url): only http:// and https:// URLs are supported")
        }
        let me = Unmanaged.passUnretained(self).toOpaque()
        try easy.set(CURLOPT_URL, request.url)
        try easy.set(CURLOPT_PROTOCOLS_STR, "http,https")
        try easy.set(CURLOPT_NOSIGNAL, 1)
        try easy.set(CURLOPT_USERAGENT, settings.userAgent)
        try easy.set(CURLOPT_CONNECTTIMEOUT_MS, settings.connectTimeoutMilliseconds)
        try easy.set(CURLOPT_LOW_SPEED_LIMIT, settings.lowSpeedLimit)
        try easy.set(CURLOPT_LOW_SPEED_TIME, settings.lowSpeedSeconds)
        try easy.set(CURLOPT_TCP_KEEPALIVE, 1)
        try easy.set(CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS)
        // Verification is always on; nothing in this client can turn it off.
        try easy.set(CURLOPT_SSL_VERIFYPEER, 1)
        try easy.set(CURLOPT_SSL_VERIFYHOST, 2)
        if let bundle = settings.caBundle {
            try easy.set(CURLOPT_CAINFO_BLOB, copyingBlob: bundle)
        }

        var lines: [String] = ["Expect:"] // no `Expect: 100-continue` round trip before a body
        // The token goes to its own server's origin only: never to a URL a server names elsewhere.
        goesElsewhere = settings.tokenOrigin.map { RequestOrigin(url: request.url) != $0 } ?? false
        if let token = settings.bearerToken, !goesElsewhere {
            lines.append("Authorization: Bearer \(token)")
        }
        if let contentType = request.body.contentType { lines.append("Content-Type: \(contentType)") }
        for (name, value) in request.headers.sorted(by: { $0.key < $1.key }) {
            guard CurlTransfer.isValidHeader(name: name, value: value) else {
                throw TransportError(kind: .invalidRequest, message: "the request header \(name.debugDescription) is malformed")
            }
            lines.append("\(name): \(value)")
        }
        try easy.setHeaders(lines)

        try easy.set(CURLOPT_WRITEFUNCTION, writeFunction: { data, size, count, context in
            guard let context else { return 0 }
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
            if let data, transfer.bodyGoesToSink() {
                guard transfer.sink?.receive(UnsafeRawBufferPointer(start: data, count: size * count)) == true else {
                    transfer.sinkRefused = true
                    return 0
                }
                return size * count
            }
            guard transfer.body.count + size * count <= CurlTransfer.maxResponseBytes else {
                transfer.responseTooLarge = true
                return 0 // anything but size * count aborts the transfer with CURLE_WRITE_ERROR
            }
            if let data { transfer.body.append(UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: size * count) }
            return size * count
        })
        try easy.set(CURLOPT_WRITEDATA, pointer: me)
        try easy.set(CURLOPT_HEADERFUNCTION, writeFunction: { data, size, count, context in
            guard let context else { return 0 }
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
            if let data {
                transfer.receiveHeaderLine(UnsafeRawBufferPointer(start: data, count: size * count))
            }
            return size * count
        })
        try easy.set(CURLOPT_HEADERDATA, pointer: me)

        switch request.method {
        case .get: try easy.set(CURLOPT_HTTPGET, 1)
        case .head: try easy.set(CURLOPT_NOBODY, 1)
        case .put, .post, .patch: break // sent as an upload below, its method named when it is not PUT
        case .delete: try easy.set(CURLOPT_CUSTOMREQUEST, "DELETE")
        }
        if let upload {
            try easy.set(CURLOPT_UPLOAD, 1)
            if request.method != .put { try easy.set(CURLOPT_CUSTOMREQUEST, request.method.rawValue) }
            try easy.set(CURLOPT_INFILESIZE_LARGE, offset: upload.size)
            if upload.size > Self.defaultUploadBuffer {
                // One read and one send per 512 KiB instead of per 64 KiB: a 256 KiB image took four of each (and
                // four rounds of libcurl's state machine); now one.
                try easy.set(CURLOPT_UPLOAD_BUFFERSIZE, Self.largeUploadBuffer)
            }
            try easy.set(readFunction: { buffer, size, count, context in
                guard let buffer, let context else { return recipes_curl_readfunc_abort() }
                let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
                return transfer.upload?.read(into: buffer, capacity: size * count) ?? recipes_curl_readfunc_abort()
            })
            try easy.set(CURLOPT_READDATA, pointer: me)
            try easy.set(seekFunction: { context, offset, origin in
                guard let context, origin == SEEK_SET else { return Int32(CURL_SEEKFUNC_CANTSEEK) }
                let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
                return transfer.upload?.seek(to: Int64(offset)) == true ? Int32(CURL_SEEKFUNC_OK) : Int32(CURL_SEEKFUNC_FAIL)
            })
            try easy.set(CURLOPT_SEEKDATA, pointer: me)
        }
        if progress != nil {
            try easy.set(CURLOPT_NOPROGRESS, 0)
            try easy.set(progressFunction: { context, _, _, totalUp, sentUp in
                guard let context else { return 0 }
                Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue().report(sent: Int64(sentUp), total: Int64(totalUp))
                return 0
            })
            try easy.set(CURLOPT_XFERINFODATA, pointer: me)
        }
    }

    /// Whether the body arriving now goes to the sink: there is one and the final answer's status is `2xx` (an error
    /// answer's body is kept in memory, to be read like any other).
    private func bodyGoesToSink() -> Bool {
        if let decided = streamsToSink { return decided }
        let decided = sink != nil && (200..<300).contains(easy.info(CURLINFO_RESPONSE_CODE))
        streamsToSink = decided
        return decided
    }

    /// When the answer deadline passes, on the monotonic clock: nil before the answer starts or without a deadline.
    var answerDueBy: UInt64? {
        guard let answerDeadline, let answerStartedAt else { return nil }
        return answerStartedAt &+ answerDeadline
    }

    /// The failure of a transfer whose answer did not arrive by its deadline.
    func answerDeadlineError() -> TransportError {
        let seconds = Double(answerDeadline ?? 0) / 1e9
        let limit = seconds.rounded() == seconds ? "\(Int(seconds)) s" : "\(seconds) s"
        return TransportError(
            kind: .timeout,
            message: redact("\(method.rawValue) \(url) failed: the server's answer did not finish within \(limit) of its "
                + "start (\(body.count) bytes of its body had come): a trickle is not progress"))
    }

    /// Rejects header names and values that would break the request (CR, LF, colon in the name).
    static func isValidHeader(name: String, value: String) -> Bool {
        !name.isEmpty && !name.contains(where: { $0 == ":" || $0.isWhitespace || $0.isNewline })
            && !value.contains(where: \.isNewline)
    }

    /// Records one header line as libcurl hands it over (bytes ending in CR LF). Parsed on bytes: a `String` built
    /// and trimmed with Foundation for every line was 5% of a 1,000-recipe sync's CPU.
    func receiveHeaderLine(_ line: UnsafeRawBufferPointer) {
        let bytes = line.bindMemory(to: UInt8.self)
        func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A }
        var start = 0
        var end = bytes.count
        while start < end, isBlank(bytes[start]) { start += 1 }
        while end > start, isBlank(bytes[end - 1]) { end -= 1 }
        let content = UnsafeBufferPointer(rebasing: bytes[start..<end])
        if answerStartedAt == nil { answerStartedAt = CurlTransfer.monotonicNanoseconds() }
        if content.starts(with: "HTTP/".utf8) {
            headers = [:]  // a new answer (after 100 Continue, say): only the final one's headers count
            return
        }
        guard let colon = content.firstIndex(of: UInt8(ascii: ":")) else { return }
        var nameEnd = colon
        while nameEnd > 0, isBlank(content[nameEnd - 1]) { nameEnd -= 1 }
        var valueStart = colon + 1
        while valueStart < content.count, isBlank(content[valueStart]) { valueStart += 1 }
        let name = String(decoding: UnsafeBufferPointer(rebasing: content[0..<nameEnd]), as: UTF8.self).lowercased()
        let value = String(decoding: UnsafeBufferPointer(rebasing: content[valueStart...]), as: UTF8.self)
        headers[name] = headers[name].map { "\($0), \(value)" } ?? value
    }

    private func report(sent: Int64, total: Int64) {
        let total = upload?.size ?? total
        guard let progress else { return }
        let now = Self.monotonicNanoseconds()
        guard Self.shouldReport(sent: sent, total: total, lastSent: lastReported, lastAt: lastReportedAt, now: now)
        else { return }
        lastReported = sent
        lastReportedAt = now
        progress(TransferProgress(sent: sent, total: total))
    }

    /// The shortest gap between two progress reports of one transfer (the one that completes the body always goes):
    /// a quarter of the 10-per-second that anyone shows, and for a quick upload a single report instead of one per
    /// buffer that libcurl sends.
    static let progressInterval: UInt64 = 25_000_000

    /// Whether libcurl's progress callback (`sent` of `total` bytes at `now`, in nanoseconds) should reach the
    /// caller, given the last report (`lastSent` at `lastAt`; the transfer's start before the first): something new
    /// was sent, and either the body is complete or `progressInterval` has passed.
    static func shouldReport(sent: Int64, total: Int64, lastSent: Int64, lastAt: UInt64, now: UInt64) -> Bool {
        guard sent != lastSent, total > 0 || sent > 0 else { return false }
        if total > 0 && sent >= total { return true }
        return now &- lastAt >= progressInterval
    }

    /// A monotonic clock in nanoseconds.
    static func monotonicNanoseconds() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// The result once libcurl finished with `code`.
    func result(for code: CURLcode) -> Result<HTTPResponse, TransportError> {
        if code == CURLE_OK {
            return .success(HTTPResponse(status: easy.info(CURLINFO_RESPONSE_CODE), foldedHeaders: headers, body: body))
        }
        if let failure = upload?.failure { return .failure(failure) }
        if sinkRefused {
            return .failure(TransportError(
                kind: .bodyRefused, message: redact("\(method.rawValue) \(url) stopped: the receiver of the answer's body refused it"),
                curlCode: Int(code.rawValue)))
        }
        if responseTooLarge {
            return .failure(TransportError(kind: .responseTooLarge,
                                           message: redact("\(method.rawValue) \(url) failed: the answer is larger than \(CurlTransfer.maxResponseBytes >> 20) MiB"),
                                           curlCode: Int(code.rawValue)))
        }
        let kind = CurlTransfer.kind(curlCode: Int(code.rawValue),
                                 nameLookupDone: easy.info(offset: CURLINFO_NAMELOOKUP_TIME_T) > 0,
                                 requestSent: easy.info(offset: CURLINFO_PRETRANSFER_TIME_T) > 0)
        let detail = CurlTransfer.detail(curlCode: Int(code.rawValue), kind: kind, errorText: easy.errorText) {
            CurlCode.describe(code)
        }
        let message = redact("\(method.rawValue) \(url) failed: \(detail)")
        return .failure(TransportError(kind: kind, message: message, curlCode: Int(code.rawValue)))
    }

    /// What a failed transfer's message says after "failed: ", without I/O: ours where libcurl's own text speaks of
    /// its insides (an answer that is not HTTP; "seek callback returned error 1", libcurl unable to send a body again
    /// from its start on a new connection, which for us means the connection closed while it was being sent), else
    /// libcurl's text for the failure (`errorText`, else `describe()`, the code's).
    static func detail(curlCode: Int, kind: TransportError.Kind, errorText: String, describe: () -> String) -> String {
        if kind == .malformedAnswer {
            return "the server's answer is not HTTP that can be read (not HTTP at all, or a header line or header section "
                + "over libcurl's limit of 100 KiB)"
        }
        if curlCode == Int(CURLE_SEND_FAIL_REWIND.rawValue) {
            return "the connection closed while the request's body was being sent"
        }
        return errorText.isEmpty ? describe() : errorText
    }

    private func redact(_ message: String) -> String {
        TransferOutcome.redact(message, token: redaction)
    }

    /// What a libcurl result code means (https://curl.se/libcurl/c/libcurl-errors.html), without I/O.
    ///
    /// `nameLookupDone` is CURLINFO_NAMELOOKUP_TIME_T > 0 and `requestSent` CURLINFO_PRETRANSFER_TIME_T > 0: they
    /// tell a time-out while resolving (a DNS failure) from one while connecting and from a stall afterwards.
    /// A failed TLS handshake (35, e.g. the connection closed during it) is a lost connection, worth retrying; an answer
    /// that is not HTTP (8), or out of memory after the request was sent (27: a header over libcurl's limit), is a
    /// malformed answer;
    /// certificate and verification failures are `.tls`, which retrying cannot fix.
    static func kind(curlCode: Int, nameLookupDone: Bool, requestSent: Bool) -> TransportError.Kind {
        guard let raw = UInt32(exactly: curlCode) else { return .other }
        switch CURLcode(rawValue: raw) {
        case CURLE_COULDNT_CONNECT:
            return .connectionRefused
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return .dnsFailure
        case CURLE_OPERATION_TIMEDOUT:
            if !nameLookupDone { return .dnsFailure }
            return requestSent ? .timeout : .connectTimeout
        case CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE, CURLE_HTTP2,
             CURLE_HTTP2_STREAM, CURLE_SEND_FAIL_REWIND, CURLE_AGAIN, CURLE_SSL_CONNECT_ERROR:
            return .connectionLost
        case CURLE_OBSOLETE51, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CACERT_BADFILE,
             CURLE_SSL_SHUTDOWN_FAILED, CURLE_SSL_CRL_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH,
             CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CIPHER, CURLE_USE_SSL_FAILED, CURLE_SSL_ENGINE_NOTFOUND,
             CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED:
            return .tls
        case CURLE_READ_ERROR, CURLE_ABORTED_BY_CALLBACK:
            return .fileUnreadable
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL, CURLE_BAD_FUNCTION_ARGUMENT:
            return .invalidRequest
        case CURLE_WEIRD_SERVER_REPLY:
            return .malformedAnswer
        case CURLE_OUT_OF_MEMORY:
            // Once the request is out, this is how libcurl 7.88 reports a header beyond its limit.
            return requestSent ? .malformedAnswer : .other
        default:
            return .other
        }
    }

    /// Hands `result` to the waiting caller, once.
    func finish(_ result: Result<HTTPResponse, TransportError>) {
        continuation?.resume(returning: result)
        continuation = nil
    }
}
