import Foundation
import RecipeModels

extension RecipeStore {
    /// Where this home keeps the bytes of `image`: its media copy (not yet confirmed by the server), else its file in
    /// `images/` (confirmed, or downloaded by a pull); nil when neither exists.
    public func localImagePath(_ image: ImageReference) -> String? {
        if let file = image.localFileName { return media.path(of: file) }
        let path = images.path(of: ImageReference.fileName(sha256: image.sha256, format: image.format))
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }
}
