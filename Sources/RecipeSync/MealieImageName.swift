import Foundation
import MealieAPI

/// The name a Mealie destination gives a recipe's image (`Destination.imageName`), which the store keeps as the
/// image's server URL: a path under the recipe's media folder whose last segment is the image's SHA-256 (as every
/// server image name has), and whose segment before it says what Mealie holds:
///
/// - `…/api/media/recipes/<id>/images/upload/<sha256>`: the local image `sha256`, to be uploaded by the recipe step
///   (Mealie takes an image only for a recipe that exists, by its slug);
/// - `…/api/media/recipes/<id>/images/mealie-<key>-<etag>-<served sha256>/<sha256>`: confirmed in Mealie
///   (`ImageIdentity.Seen`: the cache key, the `ETag` and the SHA-256 of the WebP Mealie serves), as the local image
///   `sha256` (the one uploaded, or Mealie's WebP taken by a pull).
///
/// A name, not an address fetched as it is: the destination downloads `original.webp` of the recipe
/// (docs/mealie.md, "Images").
struct MealieImageName: Equatable {
    /// The local image's SHA-256 (the recipe's image).
    var sha256: String
    /// What Mealie served when the image was confirmed; nil while it is still to be uploaded.
    var seen: ImageIdentity.Seen?

    /// The name on Mealie `baseURL` for Mealie recipe `id`.
    func text(baseURL: String, id: UUID) -> String {
        let base = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        let state = seen.map { "mealie-\($0.key)-\($0.etag)-\($0.sha256)" } ?? "upload"
        return "\(base)/api/media/recipes/\(id.uuidString.lowercased())/images/\(state)/\(sha256)"
    }

    /// Reads a name this destination gave; nil for any other URL (the contract server's, another app's).
    init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 4, parts[parts.count - 3] == "images", Self.isSHA256(parts[parts.count - 1])
        else { return nil }
        sha256 = String(parts[parts.count - 1])
        let state = parts[parts.count - 2]
        if state == "upload" {
            seen = nil
            return
        }
        let pieces = state.split(separator: "-", omittingEmptySubsequences: false)
        guard pieces.count == 4, pieces[0] == "mealie", !pieces[1].isEmpty, !pieces[2].isEmpty, Self.isSHA256(pieces[3])
        else { return nil }
        seen = ImageIdentity.Seen(key: String(pieces[1]), etag: String(pieces[2]), sha256: String(pieces[3]))
    }

    /// A name for `sha256`, confirmed as `seen` (nil: to upload).
    init(sha256: String, seen: ImageIdentity.Seen?) {
        self.sha256 = sha256
        self.seen = seen.map { ImageIdentity.Seen(key: Self.token($0.key), etag: Self.token($0.etag), sha256: $0.sha256) }
    }

    /// `text` with only letters and digits kept (an `ETag` comes quoted, and a name is one path segment).
    static func token(_ text: String) -> String {
        String(text.unicodeScalars.filter { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) })
    }

    private static func isSHA256(_ text: Substring) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}
