/// Everything `recipes-server` is started with (the command-line options of docs/recipes-server.md).
public struct ReferenceServerConfiguration: Sendable {
    /// The data directory: `server.sqlite3` and `images/` live here.
    public var dataDirectory: String
    /// The address to bind; loopback by default.
    public var host: String
    /// The port to bind; 0 picks a free one.
    public var port: Int
    /// The bearer token every request but `/v1/health` must carry, if any.
    public var token: String?
    /// The largest image accepted, in bytes.
    public var maxImageBytes: Int64
    /// Where to append one JSON line per request, if anywhere.
    public var requestLogPath: String?
    /// The fault rules, in order.
    public var faults: [FaultRule]
    /// Whether each image is flushed to disk (`fsync`) before it is acknowledged.
    public var synchronousImageWrites: Bool
    /// The idle, request-body and drain timeouts.
    public var timeouts: ServerTimeouts
    /// The optional requests answered and listed in `GET /v1/health` (all by default; none: a server from before them).
    public var features: Set<ServerFeature>
    /// How long a partial image upload is kept for resumption (`resumable-images`).
    public var partialLifetime: Duration

    /// The default image size limit: 20 MiB, the client's own limit.
    public static let defaultMaxImageBytes: Int64 = 20 << 20
    /// The default lifetime of a partial upload: 24 hours from the `PUT` that began it.
    public static let defaultPartialLifetime: Duration = .seconds(24 * 3600)

    /// Creates a configuration; only the data directory is required.
    public init(dataDirectory: String, host: String = "127.0.0.1", port: Int = 8080, token: String? = nil,
                maxImageBytes: Int64 = defaultMaxImageBytes, requestLogPath: String? = nil, faults: [FaultRule] = [],
                synchronousImageWrites: Bool = true, timeouts: ServerTimeouts = .standard,
                features: Set<ServerFeature> = ServerFeature.all, partialLifetime: Duration = defaultPartialLifetime) {
        self.dataDirectory = dataDirectory
        self.host = host
        self.port = port
        self.token = token
        self.maxImageBytes = maxImageBytes
        self.requestLogPath = requestLogPath
        self.faults = faults
        self.synchronousImageWrites = synchronousImageWrites
        self.timeouts = timeouts
        self.features = features
        self.partialLifetime = partialLifetime
    }
}
