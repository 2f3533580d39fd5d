internal import CCurl

/// `curl_global_init`, done exactly once per process before the first handle is made
/// (https://curl.se/libcurl/c/curl_global_init.html).
enum CurlGlobal {
    /// Why libcurl could not be loaded (it is opened with dlopen, see Sources/CCurl/shim.h), or nil once loaded.
    private static let loadFailure: String? = recipes_curl_load().map { String(cString: $0) }

    /// The result of the one initialisation; Swift runs a static initialiser once, thread-safely. The exit's wait for
    /// loops tearing down is registered after it, so that it runs before the exit handlers it made OpenSSL register.
    private static let initResult: CURLcode = {
        let result = recipes_curl_global_init(Int(CURL_GLOBAL_ALL))
        TeardownsAtExit.registerExitHandler()
        return result
    }()

    /// Loads and initialises libcurl if needed; throws if it could not be loaded or initialised.
    static func ensureInitialised() throws(TransportError) {
        if let loadFailure {
            throw TransportError(
                kind: .setupFailed,
                message: "cannot load libcurl (\(loadFailure)); install it, e.g. `apt-get install libcurl4`")
        }
        guard initResult == CURLE_OK else {
            throw TransportError(kind: .setupFailed, message: "libcurl could not be initialised (\(CurlCode.describe(initResult)))",
                                 curlCode: Int(initResult.rawValue))
        }
    }

    /// The system CA bundle libcurl was built to use (curl_version_info's `cainfo`), if known.
    static var defaultCAInfoPath: String? {
        guard let info = recipes_curl_version_info(CURLVERSION_TENTH), let path = info.pointee.cainfo else { return nil }
        return String(cString: path)
    }
}

/// Helpers around `CURLcode`.
enum CurlCode {
    /// libcurl's text for a code (https://curl.se/libcurl/c/curl_easy_strerror.html).
    static func describe(_ code: CURLcode) -> String {
        String(cString: recipes_curl_easy_strerror(code))
    }
}
