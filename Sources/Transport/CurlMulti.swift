internal import CCurl

/// The one owner of a libcurl multi handle (https://curl.se/libcurl/c/libcurl-multi.html), freed in `deinit`.
///
/// Every call but `wakeup` is made from the transfer loop's thread only.
final class CurlMulti {
    /// The raw `CURLM *`.
    let handle: UnsafeMutableRawPointer
    /// Whether `close` freed it already.
    private var closed = false

    /// Creates a multi handle whose connection pool keeps up to `maxConnections` idle connections.
    init(maxConnections: Int) throws(TransportError) {
        try CurlGlobal.ensureInitialised()
        guard let handle = recipes_curl_multi_init() else {
            throw TransportError(kind: .setupFailed, message: "libcurl could not create its transfer scheduler")
        }
        self.handle = handle
        _ = recipes_curl_multi_setopt_long(handle, CURLMOPT_MAXCONNECTS, maxConnections)
        _ = recipes_curl_multi_setopt_long(handle, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
    }

    deinit {
        close()
    }

    /// Frees the handle and closes its connections now (once; `deinit` does it otherwise). Nothing may be called on it
    /// afterwards.
    func close() {
        guard !closed else { return }
        closed = true
        recipes_curl_multi_cleanup(handle)
    }

    /// Adds an easy handle so it starts; false if libcurl refused it (https://curl.se/libcurl/c/curl_multi_add_handle.html).
    func add(_ easy: CurlEasy) -> Bool {
        recipes_curl_multi_add_handle(handle, easy.handle) == CURLM_OK
    }

    /// Removes an easy handle, aborting its transfer if it is running (https://curl.se/libcurl/c/curl_multi_remove_handle.html).
    func remove(_ easy: CurlEasy) {
        _ = recipes_curl_multi_remove_handle(handle, easy.handle)
    }

    /// Drives every transfer as far as it can go without waiting (https://curl.se/libcurl/c/curl_multi_perform.html).
    func perform() {
        var running: Int32 = 0
        _ = recipes_curl_multi_perform(handle, &running)
    }

    /// The next finished transfer: its easy handle and result code (https://curl.se/libcurl/c/curl_multi_info_read.html).
    func nextDone() -> (easy: UnsafeMutableRawPointer, result: CURLcode)? {
        var remaining: Int32 = 0
        while let message = recipes_curl_multi_info_read(handle, &remaining) {
            if message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle {
                return (easy, recipes_curl_msg_result(message))
            }
        }
        return nil
    }

    /// Waits for socket activity, a libcurl timer, a `wakeup`, or `milliseconds` (https://curl.se/libcurl/c/curl_multi_poll.html).
    func poll(milliseconds: Int32) {
        var ready: Int32 = 0
        _ = recipes_curl_multi_poll(handle, nil, 0, milliseconds, &ready)
    }

    /// Interrupts a `poll` from any thread (https://curl.se/libcurl/c/curl_multi_wakeup.html).
    func wakeup() {
        _ = recipes_curl_multi_wakeup(handle)
    }
}
