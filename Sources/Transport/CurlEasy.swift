internal import CCurl

/// The one owner of a libcurl easy handle, its header list and its error buffer; all are freed in `deinit`.
///
/// Used by one thread at a time, never concurrently: configured on the task that calls `HTTPClient.send`,
/// then, once submitted, used only on the transfer loop's thread (the multi handle drives it and the loop reads
/// its results there). Once the caller has its result the loop has taken it out of the multi handle for good, and
/// the client keeps it for a later request (`HTTPClient`'s spare handles), which `reset()`s it first.
final class CurlEasy: @unchecked Sendable {
    // @unchecked Sendable: handed between threads only as described above — to the loop through its inbox lock,
    // back to the caller through the result's continuation, into and out of the spare handles under their lock —
    // and never used by two threads at once.
    /// The raw `CURL *` (https://curl.se/libcurl/c/curl_easy_init.html).
    let handle: UnsafeMutableRawPointer
    /// libcurl writes its detailed error text here (CURLOPT_ERRORBUFFER, CURL_ERROR_SIZE bytes).
    private let errorBuffer: UnsafeMutablePointer<CChar>
    /// The request headers (CURLOPT_HTTPHEADER), which libcurl does not copy.
    private var headerList: UnsafeMutablePointer<curl_slist>?

    /// Creates a fresh easy handle.
    init() throws(TransportError) {
        guard let handle = recipes_curl_easy_init() else {
            throw TransportError(kind: .setupFailed, message: "libcurl could not create a transfer handle")
        }
        self.handle = handle
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        try set(CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(errorBuffer))
    }

    /// Forgets every option of the last request (libcurl keeps its buffers and the multi handle keeps the
    /// connections), ready for the next one.
    func reset() throws(TransportError) {
        recipes_curl_easy_reset(handle)
        if let headerList {
            recipes_curl_slist_free_all(headerList)
            self.headerList = nil
        }
        errorBuffer[0] = 0
        try set(CURLOPT_ERRORBUFFER, pointer: UnsafeMutableRawPointer(errorBuffer))
    }

    deinit {
        recipes_curl_easy_cleanup(handle)
        if let headerList { recipes_curl_slist_free_all(headerList) }
        errorBuffer.deallocate()
    }

    /// libcurl's detailed error text for the last failure, or "" if it wrote none.
    var errorText: String {
        String(cString: errorBuffer)
    }

    // MARK: Options (https://curl.se/libcurl/c/curl_easy_setopt.html)

    /// Sets an option that takes a `long`.
    func set(_ option: CURLoption, _ value: Int) throws(TransportError) {
        try check(recipes_curl_easy_setopt_long(handle, option, value), option)
    }

    /// Sets an option that takes a `curl_off_t`.
    func set(_ option: CURLoption, offset value: Int64) throws(TransportError) {
        try check(recipes_curl_easy_setopt_off(handle, option, curl_off_t(value)), option)
    }

    /// Sets an option that takes a string; libcurl copies it.
    func set(_ option: CURLoption, _ value: String) throws(TransportError) {
        let code = value.withCString { recipes_curl_easy_setopt_string(handle, option, $0) }
        try check(code, option)
    }

    /// Sets an option that takes a data pointer.
    func set(_ option: CURLoption, pointer value: UnsafeMutableRawPointer?) throws(TransportError) {
        try check(recipes_curl_easy_setopt_pointer(handle, option, value), option)
    }

    /// Sets an option that takes a blob, which libcurl copies (CURL_BLOB_COPY).
    func set(_ option: CURLoption, copyingBlob bytes: [UInt8]) throws(TransportError) {
        let code = bytes.withUnsafeBytes { buffer -> CURLcode in
            var blob = curl_blob(data: UnsafeMutableRawPointer(mutating: buffer.baseAddress), len: buffer.count,
                                 flags: UInt32(CURL_BLOB_COPY))
            return recipes_curl_easy_setopt_blob(handle, option, &blob)
        }
        try check(code, option)
    }

    /// Sets CURLOPT_HTTPHEADER to these `Name: value` lines (replacing any earlier ones), owned by this handle.
    ///
    /// The list is built apart and freed if building or setting it fails, so a failure leaks nothing
    /// (https://curl.se/libcurl/c/curl_slist_append.html leaves the list intact when it returns NULL).
    func setHeaders(_ lines: [String]) throws(TransportError) {
        var list: UnsafeMutablePointer<curl_slist>?
        for line in lines {
            guard let appended = recipes_curl_slist_append(list, line) else {
                if let list { recipes_curl_slist_free_all(list) }
                throw TransportError(kind: .setupFailed, message: "libcurl could not allocate the request headers")
            }
            list = appended
        }
        let code = recipes_curl_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, list)
        guard code == CURLE_OK else {
            if let list { recipes_curl_slist_free_all(list) }
            try check(code, CURLOPT_HTTPHEADER)
            return
        }
        if let headerList { recipes_curl_slist_free_all(headerList) }
        headerList = list
    }

    /// Sets CURLOPT_WRITEFUNCTION or CURLOPT_HEADERFUNCTION.
    func set(_ option: CURLoption, writeFunction: curl_write_callback) throws(TransportError) {
        try check(recipes_curl_easy_setopt_write_function(handle, option, writeFunction), option)
    }

    /// Sets CURLOPT_READFUNCTION.
    func set(readFunction: curl_read_callback) throws(TransportError) {
        try check(recipes_curl_easy_setopt_read_function(handle, readFunction), CURLOPT_READFUNCTION)
    }

    /// Sets CURLOPT_SEEKFUNCTION.
    func set(seekFunction: curl_seek_callback) throws(TransportError) {
        try check(recipes_curl_easy_setopt_seek_function(handle, seekFunction), CURLOPT_SEEKFUNCTION)
    }

    /// Sets CURLOPT_XFERINFOFUNCTION.
    func set(progressFunction: curl_xferinfo_callback) throws(TransportError) {
        try check(recipes_curl_easy_setopt_xferinfo_function(handle, progressFunction), CURLOPT_XFERINFOFUNCTION)
    }

    // MARK: Information (https://curl.se/libcurl/c/curl_easy_getinfo.html)

    /// A `long` information, or 0 if libcurl has none.
    func info(_ info: CURLINFO) -> Int {
        var value = 0
        return recipes_curl_easy_getinfo_long(handle, info, &value) == CURLE_OK ? value : 0
    }

    /// A `curl_off_t` information, or 0 if libcurl has none.
    func info(offset info: CURLINFO) -> Int64 {
        var value: curl_off_t = 0
        return recipes_curl_easy_getinfo_off(handle, info, &value) == CURLE_OK ? Int64(value) : 0
    }

    private func check(_ code: CURLcode, _ option: CURLoption) throws(TransportError) {
        guard code == CURLE_OK else {
            let kind: TransportError.Kind = code == CURLE_UNSUPPORTED_PROTOCOL || code == CURLE_URL_MALFORMAT
                ? .invalidRequest : .setupFailed
            throw TransportError(kind: kind, message: "libcurl refused option \(option.rawValue): \(CurlCode.describe(code))",
                                 curlCode: Int(code.rawValue))
        }
    }
}
