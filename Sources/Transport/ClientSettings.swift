import Foundation

/// The configuration turned into what every easy handle needs, computed once per client.
///
/// It holds the token in clear, so its description and mirror leave it out.
struct ClientSettings: Sendable, CustomStringConvertible, CustomReflectable {
    /// The `User-Agent`.
    let userAgent: String
    /// The bearer token, if any.
    let bearerToken: String?
    /// The origin the token goes to (set whenever `bearerToken` is).
    let tokenOrigin: RequestOrigin?
    /// The system CA store plus the extra bundle, as one PEM blob (CURLOPT_CAINFO_BLOB), or nil for the defaults.
    let caBundle: [UInt8]?
    /// CURLOPT_CONNECTTIMEOUT_MS.
    let connectTimeoutMilliseconds: Int
    /// CURLOPT_LOW_SPEED_LIMIT.
    let lowSpeedLimit: Int
    /// CURLOPT_LOW_SPEED_TIME (whole seconds, at least 1).
    let lowSpeedSeconds: Int

    /// Validates `configuration` and loads the CA files it names.
    init(_ configuration: HTTPClientConfiguration, systemBundlePath: String?) throws(TransportError) {
        userAgent = configuration.userAgent
        bearerToken = configuration.credentials.flatMap { $0.token.isEmpty ? nil : $0.token }
        tokenOrigin = configuration.credentials.flatMap { RequestOrigin(url: $0.serverURL) }
        if let token = bearerToken, token.contains(where: { $0.isNewline || $0 == "\0" }) {
            throw TransportError(kind: .setupFailed, message: "the server token contains a line break; set it again without one")
        }
        if bearerToken != nil, tokenOrigin == nil {
            // A token whose server cannot be told from any other would go nowhere: say so rather than send nothing.
            throw TransportError(kind: .setupFailed, message: "the token's server URL is not an http(s) URL with a plain "
                + "host, so no request could carry the token; give the client the server's base URL, e.g. "
                + "https://recipes.example.org")
        }
        connectTimeoutMilliseconds = max(1, Int(configuration.connectTimeout.milliseconds))
        lowSpeedLimit = max(0, configuration.lowSpeedLimitBytesPerSecond)
        lowSpeedSeconds = max(1, Int((Double(configuration.lowSpeedTime.milliseconds) / 1000).rounded(.up)))
        caBundle = try configuration.caBundlePath.map { path throws(TransportError) in
            try ClientSettings.combinedBundle(extra: path, system: systemBundlePath)
        }
    }

    /// The settings without the token.
    var description: String {
        "ClientSettings(userAgent: \(userAgent.debugDescription), bearerToken: \(bearerToken == nil ? "nil" : "<redacted>"))"
    }

    /// Nothing of the settings for `dump` and debuggers but what `description` shows.
    var customMirror: Mirror {
        Mirror(self, children: ["description": description])
    }

    /// The system bundle followed by the extra one: libcurl's CAINFO would replace the system store, a blob of both adds to it.
    ///
    /// An unreadable system bundle is an error, not a reason to trust the extra CA alone: every public server
    /// would then fail verification, and the user would be told about certificates instead of the real cause.
    private static func combinedBundle(extra path: String, system: String?) throws(TransportError) -> [UInt8] {
        guard let extra = FileManager.default.contents(atPath: path) else {
            throw TransportError(kind: .setupFailed, message: "cannot read the CA bundle \(path)")
        }
        guard String(decoding: extra, as: UTF8.self).contains("-----BEGIN CERTIFICATE-----") else {
            throw TransportError(kind: .setupFailed, message: "the CA bundle \(path) holds no PEM certificate")
        }
        guard let system, let systemBytes = FileManager.default.contents(atPath: system) else {
            throw TransportError(kind: .setupFailed,
                                 message: "cannot read the system CA bundle \(system ?? "(libcurl names none)") to add \(path) to it; "
                                     + "install the system CA certificates (the ca-certificates package)")
        }
        var bundle = [UInt8](systemBytes)
        bundle.append(UInt8(ascii: "\n"))
        bundle.append(contentsOf: extra)
        return bundle
    }
}

extension Duration {
    /// The duration in whole milliseconds, saturating at `Int64.min`/`Int64.max` instead of overflowing.
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        if overflow { return seconds < 0 ? .min : .max }
        let (total, overflowAgain) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000_000_000)
        if overflowAgain { return seconds < 0 ? .min : .max }
        return total
    }
}
