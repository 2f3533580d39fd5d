import Foundation
import RecipeSync
import Transport

/// A setting of `config.toml`, with its type, default, environment override and validation.
public enum ConfigKey: String, CaseIterable, Sendable {
    case serverKind = "server.kind"
    case serverURL = "server.url"
    case serverToken = "server.token"
    case serverCABundle = "server.ca_bundle"
    case syncJobs = "sync.jobs"
    case syncMaxConnections = "sync.max_connections"
    case imageMaxBytes = "image.max_bytes"

    /// The TOML table and key the setting lives under.
    var path: (table: String, key: String) {
        let parts = rawValue.split(separator: ".", maxSplits: 1).map(String.init)
        return (parts[0], parts[1])
    }

    /// The environment variable that overrides the file, if any.
    public var environmentVariable: String? {
        switch self {
        case .serverKind: "RECIPES_SERVER_KIND"
        case .serverURL: "RECIPES_SERVER_URL"
        case .serverToken: "RECIPES_TOKEN"
        case .serverCABundle: "RECIPES_CA_BUNDLE"
        case .syncJobs, .syncMaxConnections, .imageMaxBytes: nil
        }
    }

    /// Whether the value is a secret that is never printed.
    public var isSecret: Bool { self == .serverToken }

    /// Whether the value is a whole number.
    var isInteger: Bool { self == .syncJobs || self == .syncMaxConnections || self == .imageMaxBytes }

    /// The value used when neither the file nor the environment sets one.
    public var defaultValue: String? {
        switch self {
        case .syncJobs: "4"
        case .syncMaxConnections: "16"
        case .imageMaxBytes: String(20 * 1024 * 1024)
        case .serverKind: ServerKind.http.rawValue
        case .serverURL, .serverToken, .serverCABundle: nil
        }
    }

    /// What the setting means, for `config show` and `--help`.
    public var summary: String {
        switch self {
        case .serverKind: "what server.url is: " + ServerKind.allCases.map { "\($0.rawValue) (\($0.summary))" }.joined(separator: " or ")
        case .serverURL: "base URL of the recipe server, e.g. https://recipes.example.org"
        case .serverToken: "bearer token sent to the server (never printed)"
        case .serverCABundle: "extra CA certificate file (PEM) trusted for the server's TLS"
        case .syncJobs: "recipes uploaded at once (1 to 64)"
        case .syncMaxConnections:
            "the most connections a sync opens to its server on a long round trip (1 to 64; sync.jobs when larger)"
        case .imageMaxBytes: "largest image `image set` accepts, in bytes"
        }
    }

    /// What is wrong with `url` as `server.url` (which `ServerAPI` refuses), from the file, from `RECIPES_SERVER_URL`
    /// (the environment is read as it is and checked when a sync needs it) or given to `config set`.
    static func invalidServerURL(_ url: String) -> CommandLineError {
        let problem = ServerAPI.problem(with: url) ?? "it is not an http:// or https:// URL"
        return CommandLineError(
            "server.url \"\(TerminalText.clean(url))\" cannot be used: \(problem); set it with "
                + "`recipes config set server.url URL` (or RECIPES_SERVER_URL), e.g. http://127.0.0.1:8080")
    }

    /// The fewest characters a token set with `config set` may have: a shorter one is guessed quickly, and would be
    /// found inside other words of a message (the token `T` in "PUT").
    public static let shortestToken = TransferOutcome.unmistakableTokenLength

    /// Checks a value being set (`config set`) and returns it normalised: as `validate`, and a token must have at
    /// least `shortestToken` characters (one already in a file is still read, so that no command stops working).
    public func validateNew(_ raw: String) throws(CommandLineError) -> String {
        let value = try validate(raw)
        if self == .serverToken, value.count < Self.shortestToken {
            throw CommandLineError(
                "server.token must have at least \(Self.shortestToken) characters (this one has \(value.count)); make a "
                    + "longer one (e.g. `openssl rand -hex 16`), give the server the same, and set it again")
        }
        return value
    }

    /// Checks a value for this key and returns it normalised, or throws a message saying what is expected.
    public func validate(_ raw: String) throws(CommandLineError) -> String {
        let value = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        switch self {
        case .serverKind:
            return try ServerKind.named(value).rawValue
        case .serverURL:
            guard let api = ServerAPI(baseURL: value) else { throw Self.invalidServerURL(value) }
            return api.baseURL
        case .serverToken:
            guard !value.isEmpty, value.allSatisfy({ $0.isASCII && !$0.isWhitespace && !$0.isNewline }) else {
                throw CommandLineError("server.token must be non-empty printable ASCII without spaces")
            }
            return value
        case .serverCABundle:
            guard value.hasPrefix("/") else { throw CommandLineError("server.ca_bundle must be an absolute path to a PEM file") }
            return value
        case .syncJobs:
            guard let jobs = Int(value), (1...64).contains(jobs) else {
                throw CommandLineError("sync.jobs must be a whole number from 1 to 64")
            }
            return String(jobs)
        case .syncMaxConnections:
            guard let connections = Int(value), (1...64).contains(connections) else {
                throw CommandLineError("sync.max_connections must be a whole number from 1 to 64")
            }
            return String(connections)
        case .imageMaxBytes:
            guard let bytes = Int64(value), bytes >= 1, bytes <= 4 * 1024 * 1024 * 1024 else {
                throw CommandLineError("image.max_bytes must be a whole number of bytes from 1 to 4294967296")
            }
            return String(bytes)
        }
    }

    /// Finds a key by name, or throws a message listing the known keys.
    public static func named(_ name: String) throws(CommandLineError) -> ConfigKey {
        guard let key = ConfigKey(rawValue: name) else {
            let known = allCases.map(\.rawValue).joined(separator: ", ")
            throw CommandLineError("unknown setting \"\(name)\"; known settings: \(known)")
        }
        return key
    }
}
