import Foundation

/// Where a request goes, as far as credentials are concerned: the scheme, host and port of its URL (an origin, RFC
/// 6454). A client's bearer token goes only to requests of the one origin it belongs to
/// (`HTTPClientConfiguration.tokenOrigin`): a URL a server names — an image on another host or port, say — never
/// carries it.
public struct RequestOrigin: Sendable, Equatable, CustomStringConvertible {
    /// `http` or `https`.
    public let scheme: String
    /// The host, lower case (an IPv6 address without its brackets).
    public let host: String
    /// The port: the URL's, else 80 for http and 443 for https.
    public let port: Int

    /// The origin of `url`; nil for anything but an `http(s)` URL with a host, and for a URL whose authority holds what
    /// URL parsers read differently (user information, a backslash, blanks or control characters): such a URL is never
    /// taken for the token's origin.
    public init?(url: String) {
        let lowered = url.lowercased()
        let scheme = lowered.hasPrefix("https://") ? "https" : lowered.hasPrefix("http://") ? "http" : nil
        guard let scheme else { return nil }
        let rest = url.dropFirst(scheme.count + 3)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.isEmpty,
            !authority.unicodeScalars.contains(where: { $0 == "@" || $0 == "\\" || $0.value <= 0x20 || $0.value == 0x7F })
        else { return nil }
        guard let target = ConnectProbe.hostAndPort(of: "\(scheme)://\(authority)/") else { return nil }
        self.scheme = scheme
        self.host = target.host.lowercased()
        self.port = target.port
    }

    /// `scheme://host:port`.
    public var description: String {
        "\(scheme)://\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }
}
