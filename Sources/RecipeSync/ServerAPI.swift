import Foundation
import RecipeModels
import Transport

/// The requests of the HTTP contract (CONTRACT section 3) for one server, and what their answers mean.
///
/// Building requests and reading answers are plain functions, tested without a network.
public struct ServerAPI: Sendable, Equatable {
    /// The base URL, without a trailing slash.
    public let baseURL: String

    /// Creates the API of the server at `baseURL` (`http://` or `https://` with a host, without credentials, query
    /// or fragment); nil for anything else. This is the one check of a server URL, for the configuration file and
    /// `RECIPES_SERVER_URL` alike.
    public init?(baseURL: String) {
        var base = baseURL.trimmingCharacters(in: .whitespaces)
        while base.hasSuffix("/") { base.removeLast() }
        guard let components = URLComponents(string: base), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty,
            components.user == nil, components.password == nil, components.query == nil, components.fragment == nil
        else { return nil }
        self.baseURL = base
    }

    /// The URL of image `sha256` on the server.
    public func imageURL(sha256: String) -> String { "\(baseURL)/v1/images/\(sha256)" }

    /// `HEAD /v1/images/{sha256}`: does the server have it?
    public func headImage(sha256: String) -> HTTPRequest {
        HTTPRequest(method: .head, url: imageURL(sha256: sha256))
    }

    /// `PUT /v1/images/{sha256}`, streamed from `path`.
    public func putImage(sha256: String, path: String, format: ImageFormat) -> HTTPRequest {
        HTTPRequest(method: .put, url: imageURL(sha256: sha256), body: .file(path: path, contentType: format.mediaType))
    }

    /// `PUT /v1/recipes/{uuid}`, the outbox file at `path`.
    public func putRecipe(uuid: UUID, path: String) -> HTTPRequest {
        HTTPRequest(
            method: .put, url: "\(baseURL)/v1/recipes/\(uuid.uuidString.lowercased())",
            body: .file(path: path, contentType: "application/json"))
    }

    /// `DELETE /v1/recipes/{uuid}`.
    public func deleteRecipe(uuid: UUID) -> HTTPRequest {
        HTTPRequest(method: .delete, url: "\(baseURL)/v1/recipes/\(uuid.uuidString.lowercased())")
    }

    // MARK: Answers

    /// The image URL in a `PUT /v1/images` answer (`{"sha256":…,"url":…,"bytes":…}`), checked against `sha256`.
    public static func imageURL(inAnswer body: Data, sha256: String) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
            let url = object["url"] as? String, !url.isEmpty
        else { return nil }
        if let answered = object["sha256"] as? String, answered.lowercased() != sha256 { return nil }
        return url
    }

    /// The `version` in a recipe answer (`{"identifier":…,"version":…}`) or a 409 body (`{"version":N}`).
    public static func version(inAnswer body: Data) -> Int64? {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else { return nil }
        if let number = object["version"] as? NSNumber { return number.int64Value }
        return nil
    }
}
