import Foundation

/// The fields of an uploaded schema.org `Recipe` the server checks and indexes; validation is a pure function.
public struct RecipeDocument: Sendable, Equatable {
    /// The recipe's UUID as written in the document.
    public var identifier: String
    /// The server version this write makes (>= 1): the base version + 1, or 1 for a new recipe.
    public var version: Int
    /// The recipe's name (non-empty).
    public var name: String
    /// The SHA-256 of the image the `image` URL points to, when the recipe has one.
    public var imageSHA256: String?
    /// `dateModified` as sent, if any.
    public var dateModified: String?

    /// Validates a recipe document uploaded to `PUT /v1/recipes/{pathIdentifier}` through `authority` (the request's
    /// host and port, which this server's image answers name); throws a 422 saying what is wrong.
    ///
    /// A recipe's `image` must be one of this server's own image URLs, `http://<authority>/v1/images/<sha256>`, as its
    /// image answer gave it: a document naming an image elsewhere (another host or port) would send every client that
    /// restores it there.
    public static func validate(_ data: Data, pathIdentifier: String, authority: String) throws(ServerError) -> RecipeDocument {
        let parsed: Any
        do { parsed = try JSONSerialization.jsonObject(with: data) } catch {
            throw .invalid("The body is not valid JSON; send the recipe as a schema.org Recipe JSON object.")
        }
        guard let object = parsed as? [String: Any] else {
            throw .invalid("The body is not a JSON object; send the recipe as a schema.org Recipe JSON object.")
        }
        guard let type = object["@type"] as? String, type == "Recipe" else {
            throw .invalid("\"@type\" must be \"Recipe\".")
        }
        guard let identifier = object["identifier"] as? String else {
            throw .invalid("\"identifier\" is missing or not a string; it must equal the UUID in the path.")
        }
        guard identifier.lowercased() == pathIdentifier.lowercased() else {
            throw .invalid("\"identifier\" (\(identifier.prefix(64))) differs from the UUID in the path (\(pathIdentifier)).")
        }
        guard let version = integerVersion(data), version >= 1 else {
            throw .invalid("\"version\" must be an integer >= 1: the server version this write makes (If-Match base + 1, or 1 with If-None-Match: *).")
        }
        guard let name = object["name"] as? String, !name.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw .invalid("\"name\" must be a non-empty string.")
        }
        var imageSHA256: String?
        if let image = object["image"], !(image is NSNull) {
            guard let text = image as? String, let sha = imageSHA256FromURL(text) else {
                throw .invalid("\"image\" must be the url of an image answer of this server (…/v1/images/<sha256>).")
            }
            guard isOwnImageURL(text, authority: authority) else {
                throw .invalid("\"image\" must be one of this server's image URLs, http://\(authority)/v1/images/<sha256> as "
                    + "its image answer gave it; \(text.prefix(200)) is elsewhere.")
            }
            imageSHA256 = sha
        }
        return RecipeDocument(identifier: identifier, version: version, name: name, imageSHA256: imageSHA256,
                              dateModified: object["dateModified"] as? String)
    }

    /// The `version` member decoded strictly as an integer (a boolean, string or fraction is refused).
    static func integerVersion(_ data: Data) -> Int? {
        struct VersionField: Decodable { var version: Int? }
        return (try? JSONDecoder().decode(VersionField.self, from: data))?.version
    }

    /// The SHA-256 in an image URL of the form `http(s)://host/v1/images/<64 lowercase hex>`, else nil.
    static func imageSHA256FromURL(_ text: String) -> String? {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
              scheme == "http" || scheme == "https", components.host?.isEmpty == false else { return nil }
        let parts = components.path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0].isEmpty, parts[1] == "v1", parts[2] == "images" else { return nil }
        let sha = String(parts[3])
        return isSHA256(sha) ? sha : nil
    }

    /// Whether `url` (an image URL, checked by `imageSHA256FromURL`) is this server's as reached through `authority`:
    /// `http`, that host (in any case) and that port, and nothing else in its authority (no user information).
    static func isOwnImageURL(_ url: String, authority: String) -> Bool {
        let prefix = "http://" + authority.lowercased() + "/"
        return url.lowercased().hasPrefix(prefix)
    }

    /// Whether a string is 64 lowercase hexadecimal digits.
    public static func isSHA256(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}
