import Foundation

/// An optional request of the HTTP contract (docs/http-api.md, "Optional requests"): the server answers it and lists
/// its name in `GET /v1/health` (`"features"`) only when it is turned on, so tests and benches can also run a server
/// that behaves like one from before these requests existed.
public enum ServerFeature: String, Sendable, CaseIterable, Comparable {
    /// `POST /v1/images/missing`: which of up to 1000 images the server lacks, in one round trip.
    case imagesMissing = "images-missing"
    /// `POST /v1/recipes/batch`: up to 100 conditional recipe writes in one request.
    case recipesBatch = "recipes-batch"
    /// An interrupted image `PUT` is kept as a partial that `HEAD` reports and `PATCH` completes.
    case resumableImages = "resumable-images"

    /// Orders features by name, as `/v1/health` lists them.
    public static func < (lhs: ServerFeature, rhs: ServerFeature) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Every feature: what `recipes-server` answers by default.
    public static let all = Set(allCases)

    /// Reads `--features`: `all`, `none`, or names separated by commas; nil for anything else.
    public static func parseList(_ text: String) -> Set<ServerFeature>? {
        switch text.trimmingCharacters(in: .whitespaces) {
        case "all": return all
        case "none": return []
        default:
            var features: Set<ServerFeature> = []
            for name in text.split(separator: ",", omittingEmptySubsequences: false) {
                guard let feature = ServerFeature(rawValue: name.trimmingCharacters(in: .whitespaces)) else { return nil }
                features.insert(feature)
            }
            return features
        }
    }
}
