/// Client configuration: the base behaviour of every request an `HTTPClient` sends.
///
/// Reading the caller's settings (a CA bundle, a token) is the caller's job; proxies come from the
/// standard variables (`http_proxy`, `https_proxy`, `no_proxy`…), which libcurl reads itself.
public struct HTTPClientConfiguration: Sendable, Equatable {
    /// The `User-Agent` header, `recipes/<version>`.
    public var userAgent: String
    /// The bearer token and the server it belongs to: sent as `Authorization: Bearer …` to that server's origin only;
    /// nil for none. The token never appears in errors.
    public var credentials: BearerCredentials?
    /// A PEM file of extra CA certificates trusted in addition to the system's store (never instead of it).
    public var caBundlePath: String?
    /// How long opening a connection (TCP and TLS) may take.
    public var connectTimeout: Duration
    /// With `lowSpeedTime`: a transfer slower than this many bytes per second for that long is abandoned (a trickle of
    /// a few bytes a second is no progress; the slowest real links move kilobytes).
    public var lowSpeedLimitBytesPerSecond: Int
    /// With `lowSpeedLimitBytesPerSecond`: how long a transfer may stay below the limit (a dead server is noticed).
    public var lowSpeedTime: Duration
    /// How many transfers run at once; more requests wait in order. With `startingConcurrentTransfers`, the most a
    /// caller may raise it to (`HTTPClient.setConcurrentTransfers`).
    public var maxConcurrentTransfers: Int
    /// How many transfers run at once until the caller adapts it to the link (nil: `maxConcurrentTransfers`).
    public var startingConcurrentTransfers: Int?
    /// Answers after which the client sends nothing more (for example 401 and 403: credentials every later request
    /// would carry too). Requests still waiting, and any sent later, fail as `.halted` without reaching the
    /// server; transfers already on the wire finish. An answer from another origin than the credentials' (which carried
    /// no token) halts nothing. Default: none.
    public var haltingStatuses: Set<Int> = []

    /// Creates a configuration.
    public init(userAgent: String = "recipes/\(TransportVersion.current)", credentials: BearerCredentials? = nil,
                caBundlePath: String? = nil, connectTimeout: Duration = .seconds(10), lowSpeedLimitBytesPerSecond: Int = 256,
                lowSpeedTime: Duration = .seconds(30), maxConcurrentTransfers: Int = 4) {
        self.userAgent = userAgent
        self.credentials = credentials
        self.caBundlePath = caBundlePath
        self.connectTimeout = connectTimeout
        self.lowSpeedLimitBytesPerSecond = lowSpeedLimitBytesPerSecond
        self.lowSpeedTime = lowSpeedTime
        self.maxConcurrentTransfers = maxConcurrentTransfers
    }
}

extension HTTPClientConfiguration: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Every setting, with the bearer token shown as `<redacted>`.
    public var description: String {
        "HTTPClientConfiguration(userAgent: \(userAgent.debugDescription), bearerToken: \(credentials == nil ? "nil" : "<redacted>"), "
            + "tokenOrigin: \(credentials?.serverURL.debugDescription ?? "nil"), caBundlePath: \(caBundlePath?.debugDescription ?? "nil"), connectTimeout: \(connectTimeout), "
            + "lowSpeedLimitBytesPerSecond: \(lowSpeedLimitBytesPerSecond), lowSpeedTime: \(lowSpeedTime), "
            + "maxConcurrentTransfers: \(maxConcurrentTransfers))"
    }

    /// The same as `description`: the token is never shown.
    public var debugDescription: String { description }

    /// The settings for `dump` and debuggers, with the bearer token shown as `<redacted>`.
    public var customMirror: Mirror {
        Mirror(self, children: [
            "userAgent": userAgent,
            "bearerToken": credentials.map { _ in "<redacted>" } as Any,
            "tokenOrigin": credentials?.serverURL as Any,
            "caBundlePath": caBundlePath as Any,
            "connectTimeout": connectTimeout,
            "lowSpeedLimitBytesPerSecond": lowSpeedLimitBytesPerSecond,
            "lowSpeedTime": lowSpeedTime,
            "maxConcurrentTransfers": maxConcurrentTransfers,
        ], displayStyle: .struct)
    }
}

/// The version in the default `User-Agent`; the command line passes its own `recipes/<version>`.
public enum TransportVersion {
    /// The version string of this build.
    public static let current = "0.1.0"
}
