/// One HTTP request: method, absolute URL, extra headers and body.
public struct HTTPRequest: Sendable, Equatable {
    /// The method.
    public var method: HTTPMethod
    /// The absolute URL, e.g. `https://example.org/v1/images/<sha256>`.
    public var url: String
    /// Extra headers; `User-Agent` and `Authorization` come from the client's configuration.
    public var headers: [String: String]
    /// What the request sends.
    public var body: RequestBody
    /// How long the whole answer may take to arrive once its first line has come, however steadily it trickles in;
    /// nil: only the client's low-speed limit applies. For requests whose answers are small.
    public var answerDeadline: Duration?
    /// Whether libcurl may send the body again by itself, on a new connection, when a reused one dies before the
    /// answer (its transparent retry): false for an upload whose caller resumes it from what the server kept instead of
    /// sending it all again.
    public var resendsWhole = true
    /// Whether it starts before the transfers already waiting for a slot: for a small request whose answer many
    /// callers wait for (a batch), which should not queue behind a window of large uploads.
    public var startsAhead = false

    /// Creates a request.
    public init(
        method: HTTPMethod, url: String, headers: [String: String] = [:], body: RequestBody = .empty,
        answerDeadline: Duration? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.answerDeadline = answerDeadline
    }
}
