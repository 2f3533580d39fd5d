import Foundation
import RecipeModels
import Transport

/// The requests of the HTTP contract (docs/http-api.md) for one server, and what their answers mean.
///
/// Building requests and reading answers are plain functions, tested without a network.
public struct ServerAPI: Sendable, Equatable {
    /// The base URL, without a trailing slash.
    public let baseURL: String

    /// Creates the API of the server at `baseURL` (see `problem(with:)`); nil when the URL has a problem. This is the
    /// one check of a server URL, for `recipes config set`, the configuration file and `RECIPES_SERVER_URL` alike.
    public init?(baseURL: String) {
        guard Self.problem(with: baseURL) == nil else { return nil }
        var base = baseURL.trimmingCharacters(in: .whitespaces)
        while base.hasSuffix("/") { base.removeLast() }
        self.baseURL = base
    }

    /// What is wrong with `text` as a server's base URL, in words, or nil when it is one: `http://` or `https://`, a
    /// host, a port from 1 to 65535 when one is given (`host:` with nothing after the colon is no port), no
    /// credentials, query or fragment, and no `/v1` in the path (the client adds `/v1/…` to the base itself).
    public static func problem(with text: String) -> String? {
        var base = text.trimmingCharacters(in: .whitespaces)
        while base.hasSuffix("/") { base.removeLast() }
        guard !base.isEmpty else { return "it is empty" }
        guard let separator = base.range(of: "://") else {
            return "it has no scheme: write http:// or https:// in front (http://\(base))"
        }
        let scheme = base[..<separator.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" else {
            return "it must start with http:// or https://, not \(base[..<separator.upperBound])"
        }
        let rest = base[separator.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        if authority.contains("@") { return "it holds a user name or password; keep the token in server.token instead" }
        if authority.hasSuffix(":") {
            return "it ends its host with \":\" but gives no port; give the port (\(scheme)://\(authority)8080) or "
                + "leave the \":\" out for the default port (\(scheme == "https" ? 443 : 80))"
        }
        guard let components = URLComponents(string: base), let host = components.host, !host.isEmpty else {
            if let colon = authority.lastIndex(of: ":"), !authority.hasSuffix("]"),
                Int(authority[authority.index(after: colon)...]) == nil
            {
                return "its port \"\(authority[authority.index(after: colon)...])\" is not a number from 1 to 65535"
            }
            return "it has no host name: write it as \(scheme)://HOST or \(scheme)://HOST:PORT"
        }
        if let port = components.port, !(1...65_535).contains(port) { return "its port \(port) is not from 1 to 65535" }
        if components.query != nil || components.fragment != nil { return "it holds a query (?…) or a fragment (#…)" }
        let segments = components.path.split(separator: "/")
        if segments.contains("v1") {
            let kept = segments.prefix { $0 != "v1" }.joined(separator: "/")
            let suggested = "\(scheme)://\(authority)" + (kept.isEmpty ? "" : "/" + kept)
            return "it holds /v1, which recipes adds to the base URL itself: set the server's base URL, \(suggested)"
        }
        return nil
    }

    /// The URL of image `sha256` on the server.
    public func imageURL(sha256: String) -> String { "\(baseURL)/v1/images/\(sha256)" }

    /// Where a client fetches `image`: one of the server's own form (`http(s)://…/v1/images/<sha256>`, content-addressed
    /// and checked by its SHA-256) from this server's own base URL, whatever host and port the document names (devices
    /// that name one server differently — `127.0.0.1` and `localhost`, a LAN address and a `.local` name, a proxy —
    /// each fetch it where they reach the server, with the token); any other URL (another app's, say) where it names,
    /// which never carries the token. A plain function, tested from a table.
    public func downloadURL(of image: RecipeImage) -> String {
        guard let url = image.serverURL else { return imageURL(sha256: image.sha256) }
        return Self.isOwnImageForm(url, sha256: image.sha256) ? imageURL(sha256: image.sha256) : url
    }

    /// Whether `url` is an `http(s)` URL whose path ends in `/v1/images/<sha256>`.
    static func isOwnImageForm(_ url: String, sha256: String) -> Bool {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", components.host?.isEmpty == false
        else { return false }
        let segments = components.path.split(separator: "/", omittingEmptySubsequences: false)
        guard segments.count >= 3 else { return false }
        let tail = segments.suffix(3)
        return tail[tail.startIndex] == "v1" && tail[tail.startIndex + 1] == "images"
            && tail[tail.startIndex + 2].lowercased() == sha256.lowercased()
    }

    /// How long the answer to a write or a `HEAD` may take once it has started: these answers are a few dozen bytes, so
    /// a server still trickling one after this long is making no progress, whatever its rate.
    public static let answerDeadline: Duration = .seconds(30)

    /// `HEAD /v1/images/{sha256}`: does the server have it?
    public func headImage(sha256: String) -> HTTPRequest {
        HTTPRequest(method: .head, url: imageURL(sha256: sha256), answerDeadline: Self.answerDeadline)
    }

    /// `PUT /v1/images/{sha256}`, streamed from `path`.
    public func putImage(sha256: String, path: String, format: ImageFormat) -> HTTPRequest {
        HTTPRequest(
            method: .put, url: imageURL(sha256: sha256), body: .file(path: path, contentType: format.mediaType),
            answerDeadline: Self.answerDeadline)
    }

    /// `PUT /v1/recipes/{uuid}` of `document`, the bytes just written to the recipe's outbox file, conditional on the
    /// server having version `base` (`If-Match`), or none when `base` is nil (`If-None-Match: *`, a recipe the server
    /// never had).
    public func putRecipe(uuid: UUID, document: Data, base: Int64?) -> HTTPRequest {
        HTTPRequest(
            method: .put, url: recipeURL(uuid), headers: Self.precondition(base),
            body: .data(document, contentType: "application/json"), answerDeadline: Self.answerDeadline)
    }

    /// `DELETE /v1/recipes/{uuid}`, conditional on the server having version `base` (`If-Match`).
    public func deleteRecipe(uuid: UUID, base: Int64) -> HTTPRequest {
        HTTPRequest(method: .delete, url: recipeURL(uuid), headers: ["If-Match": "\"\(base)\""], answerDeadline: Self.answerDeadline)
    }

    /// `GET /v1/recipes/{uuid}`: the server's copy, read after a `412`.
    public func getRecipe(uuid: UUID) -> HTTPRequest {
        HTTPRequest(method: .get, url: recipeURL(uuid))
    }

    /// `GET /v1/images/{sha256}` of an image at `url` (the recipe names its image by the URL the server gave).
    public func getImage(url: String) -> HTTPRequest {
        HTTPRequest(method: .get, url: url)
    }

    /// `GET /v1/changes?since=&limit=`: a page of the changes feed; with `wait` (seconds, at most 60), the server holds
    /// an empty answer until a change exists or the time has passed (the long poll of `recipes sync --watch`).
    public func changes(since: Int64, limit: Int, wait: Int? = nil) -> HTTPRequest {
        let held = wait.map { "&wait=\(min(max(0, $0), 60))" } ?? ""
        var request = HTTPRequest(method: .get, url: "\(baseURL)/v1/changes?since=\(since)&limit=\(limit)\(held)")
        request.startsAhead = true   // a pull's next page goes before the downloads of the page before
        return request
    }

    /// The URL of recipe `uuid`.
    private func recipeURL(_ uuid: UUID) -> String { "\(baseURL)/v1/recipes/\(uuid.lowercasedString)" }

    /// The precondition headers of a write based on server version `base` (nil: the server never had the recipe).
    static func precondition(_ base: Int64?) -> [String: String] {
        base.map { ["If-Match": "\"\($0)\""] } ?? ["If-None-Match": "*"]
    }
}
