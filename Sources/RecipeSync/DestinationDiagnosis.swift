import Foundation
import Transport

/// What a failure to talk to the destination says about it, in words: the network (nothing to do but wait), or the
/// set-up (server.url names something that is not a recipes server, or speaks the wrong protocol), which a person
/// must fix and which waiting never cures.
///
/// A plain function of what was observed (`classify`), tested from a table; the run, the idle cron check and
/// `Reachability` (the words of an unreachable server) ask it.
public enum DestinationDiagnosis: Sendable, Equatable {
    /// No route to the host: the network is down, the name does not resolve, nothing answers in time. A later run
    /// tries again (exit 75, quiet in cron).
    case offline(String)
    /// The host is there but nothing listens on the port: the server is stopped, or the port in server.url is wrong.
    /// Also tried again later (exit 75), but said so.
    case nothingListening(String)
    /// Something answers on that port, but not as a recipes server does (the contract's requests are not there):
    /// a set-up mistake (exit 1, said even by `--background`).
    case notARecipesServer(String)
    /// `https://` in server.url, and the server answers in plain HTTP: a set-up mistake.
    case tlsToPlainHTTP(String)
    /// `http://` in server.url, and the server expects TLS: a set-up mistake.
    case plainHTTPToTLS(String)
    /// TLS with a certificate this device does not trust: a server signed by a CA it lacks (server.ca_bundle), or a
    /// captive portal answering in the server's place. The run stops and no recipe is marked failed (a retry after
    /// signing in, or with the CA, gets through): a set-up mistake until then.
    case untrustedCertificate(String)
    /// Nothing about the destination as such (a server error, a refusal of one recipe, a timeout mid-transfer).
    case other

    /// Whether a person must change the set-up (server.url, the server) for any sync to work.
    public var isSetUpMistake: Bool {
        switch self {
        case .notARecipesServer, .tlsToPlainHTTP, .plainHTTPToTLS, .untrustedCertificate: true
        case .offline, .nothingListening, .other: false
        }
    }

    /// What to tell the person, or nil for `other`.
    public var words: String? {
        switch self {
        case .offline(let words), .nothingListening(let words), .notARecipesServer(let words), .tlsToPlainHTTP(let words),
            .plainHTTPToTLS(let words), .untrustedCertificate(let words):
            words
        case .other:
            nil
        }
    }

    /// What was observed of the destination.
    public enum Observation: Sendable, Equatable {
        /// The reachability probe could not open a TCP connection.
        case connect(ConnectFailure)
        /// A request got no HTTP answer.
        case transport(TransportError.Kind, message: String)
        /// A request of the contract got an HTTP answer with `status` (and, for a `400`, a body that may name TLS).
        case answer(status: Int, request: ContractRequest, body: String)
    }

    /// The requests of the contract, as far as what their answers mean for the destination goes.
    public enum ContractRequest: Sendable, Equatable {
        /// `GET /v1/changes`, `GET /v1/health`, `PUT /v1/images/…`, `PUT` or `DELETE /v1/recipes/…`: a recipes
        /// server never answers these `404` or `405`.
        case always
        /// `HEAD` or `GET /v1/images/…`, `GET /v1/recipes/…`: `404` is an answer of the contract.
        case mayBeMissing
    }

    /// The destination a request went to: its scheme, `host:port` and path, for the words.
    public struct Destination: Sendable, Equatable {
        public var scheme: String
        public var hostAndPort: String
        public var path: String

        /// The destination of base URL `url` (as `ServerAPI` keeps it), or nil for one without a host.
        public init?(url: String) {
            guard let components = URLComponents(string: url), let target = ConnectProbe.hostAndPort(of: url) else {
                return nil
            }
            scheme = components.scheme?.lowercased() ?? "http"
            hostAndPort = target.host.contains(":") ? "[\(target.host)]:\(target.port)" : "\(target.host):\(target.port)"
            path = components.path
        }
    }

    /// What `observation` of `destination` means.
    public static func classify(_ observation: Observation, of destination: Destination) -> DestinationDiagnosis {
        let target = destination.hostAndPort
        switch observation {
        case .connect(.unresolved):
            return .offline("cannot reach \(target): its name does not resolve (no network, or a typo in server.url?)")
        case .connect(.unreachable(let reason)):
            return .offline("cannot reach \(target): no route to the host (\(reason))")
        case .connect(.timedOut):
            return .offline("cannot reach \(target): no answer (no network, the host is down, or a firewall)")
        case .connect(.refused):
            return nothingListening(target, scheme: destination.scheme)
        case .transport(let kind, let message):
            let lowered = message.lowercased()
            // OpenSSL's words for a first answer that is no TLS record (libcurl reports them as a TLS or a connect
            // error, depending on its version).
            if destination.scheme == "https",
                ["wrong version number", "packet length too long", "record layer failure", "unknown protocol"]
                    .contains(where: lowered.contains)
            {
                return .tlsToPlainHTTP(
                    "\(target) answers in plain HTTP, not TLS: server.url says https://; if the server speaks plain "
                        + "HTTP (recipes-server does), set server.url to http://\(target)\(destination.path)")
            }
            if destination.scheme == "http", lowered.contains("http/0.9") {
                return plainHTTPToTLS(target, destination)
            }
            if kind == .tls {
                return .untrustedCertificate(
                    "the TLS certificate of \(target) is not trusted here (\(message)); behind a captive portal, sign in to "
                        + "the network; otherwise set server.ca_bundle (or RECIPES_CA_BUNDLE) to the PEM file of the CA "
                        + "that signed it. Nothing was sent; the recipes are still to send")
            }
            if kind == .connectionRefused, lowered.contains("refused") { return nothingListening(target, scheme: destination.scheme) }
            if kind == .dnsFailure { return classify(.connect(.unresolved), of: destination) }
            return .other
        case .answer(let status, let request, let body):
            if status == 400, destination.scheme == "http", body.lowercased().contains("https") {
                return plainHTTPToTLS(target, destination)
            }
            guard request == .always, [404, 405, 501].contains(status) else { return .other }
            return .notARecipesServer(notARecipesServer(destination, status: status))
        }
    }

    private static func nothingListening(_ target: String, scheme: String) -> DestinationDiagnosis {
        .nothingListening(
            "nothing answers on \(target) (connection refused): is the server running, and is the port in server.url "
                + "the one it listens on?")
    }

    private static func plainHTTPToTLS(_ target: String, _ destination: Destination) -> DestinationDiagnosis {
        .plainHTTPToTLS(
            "\(target) expects TLS: server.url says http://; set it to https://\(target)\(destination.path)")
    }

    private static func notARecipesServer(_ destination: Destination, status: Int) -> String {
        let url = "\(destination.scheme)://\(destination.hostAndPort)\(destination.path)"
        let said = "\(url) is not a recipes server: it answers HTTP \(status) to the recipes requests (/v1/…)"
        let trimmed = destination.path.hasSuffix("/") ? String(destination.path.dropLast()) : destination.path
        if trimmed.hasSuffix("/v1") {
            let base = "\(destination.scheme)://\(destination.hostAndPort)\(trimmed.dropLast(3))"
            return said + "; server.url is the server's base URL, without /v1 (recipes adds it): set it to \(base)"
        }
        if !trimmed.isEmpty {
            return said + "; check the path in server.url (recipes-server's own URL has none: "
                + "\(destination.scheme)://\(destination.hostAndPort))"
        }
        return said + "; check that server.url is the address the recipes server prints (\"listening on …\")"
    }
}
