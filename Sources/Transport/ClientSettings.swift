import Foundation

/// The configuration turned into what every easy handle needs, computed once per client.
struct ClientSettings: Sendable {
    /// The `User-Agent`.
    let userAgent: String
    /// The bearer token, if any.
    let bearerToken: String?
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
        bearerToken = configuration.bearerToken.flatMap { $0.isEmpty ? nil : $0 }
        if let token = bearerToken, token.contains(where: { $0.isNewline || $0 == "\0" }) {
            throw TransportError(kind: .setupFailed, message: "the server token contains a line break; set it again without one")
        }
        connectTimeoutMilliseconds = max(1, Int(configuration.connectTimeout.milliseconds))
        lowSpeedLimit = max(0, configuration.lowSpeedLimitBytesPerSecond)
        lowSpeedSeconds = max(1, Int((Double(configuration.lowSpeedTime.milliseconds) / 1000).rounded(.up)))
        caBundle = try configuration.caBundlePath.map { path throws(TransportError) in
            try ClientSettings.combinedBundle(extra: path, system: systemBundlePath)
        }
    }

    /// The system bundle followed by the extra one: libcurl's CAINFO would replace the system store, a blob of both adds to it.
    private static func combinedBundle(extra path: String, system: String?) throws(TransportError) -> [UInt8] {
        guard let extra = FileManager.default.contents(atPath: path) else {
            throw TransportError(kind: .setupFailed, message: "cannot read the CA bundle \(path); check the RECIPES_CA_BUNDLE path")
        }
        guard String(decoding: extra, as: UTF8.self).contains("-----BEGIN CERTIFICATE-----") else {
            throw TransportError(kind: .setupFailed, message: "the CA bundle \(path) holds no PEM certificate; give a PEM file")
        }
        var bundle: [UInt8] = []
        if let system, let systemBytes = FileManager.default.contents(atPath: system) {
            bundle.append(contentsOf: systemBytes)
            bundle.append(UInt8(ascii: "\n"))
        }
        bundle.append(contentsOf: extra)
        return bundle
    }
}

extension Duration {
    /// The duration in whole milliseconds.
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
