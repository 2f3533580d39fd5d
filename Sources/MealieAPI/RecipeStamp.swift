import Foundation

/// One Mealie recipe as the sync follows it: the id that names it for good, the slug its image upload is addressed
/// by, and its last write — read from a whole recipe or from an item of the recipe list alike.
public struct RecipeStamp: Sendable, Equatable {
    /// Mealie's `id`, which survives renames (the slug does not).
    public var id: UUID
    /// The slug, `slugify(name)`: changes with the name.
    public var slug: String
    /// The recipe's name.
    public var name: String
    /// When Mealie last wrote the recipe (any `PUT`, an image upload, a rating, "last made"); it stands in for a
    /// version, since Mealie has none.
    public var updatedAt: MealieTimestamp
    /// Mealie's `image` field: a cache key that changes with each upload (a random number from 0 to 255 as text), nil
    /// when the recipe has no image. Not a digest of the image (docs/mealie.md, "Images").
    public var imageKey: String?

    /// Creates a stamp.
    public init(id: UUID, slug: String, name: String, updatedAt: MealieTimestamp, imageKey: String?) {
        self.id = id
        self.slug = slug
        self.name = name
        self.updatedAt = updatedAt
        self.imageKey = imageKey
    }
}

/// The fields of a recipe (whole, or an item of the list) that a stamp is made of.
struct RecipeStampJSON: Decodable {
    let id: String
    let slug: String
    let name: String?
    let updatedAt: String
    let image: ScalarText?

    /// The stamp, or the field that cannot be right (`path` prefixes the field's name, as `items[3].`).
    func stamp(path: String) -> Result<RecipeStamp, MealieAnswerError.Problem> {
        guard let uuid = UUID(uuidString: id) else { return .failure(.badValue(path: path + "id", value: id)) }
        guard Self.isSlug(slug) else { return .failure(.badValue(path: path + "slug", value: slug)) }
        guard let written = MealieTimestamp(parsing: updatedAt) else {
            return .failure(.badValue(path: path + "updatedAt", value: updatedAt))
        }
        let key = image.map(\.text).flatMap { $0.isEmpty ? nil : $0 }
        return .success(RecipeStamp(id: uuid, slug: slug, name: name ?? "", updatedAt: written, imageKey: key))
    }

    /// Whether `text` can be a slug to address an image upload by: not empty, at most 1,000 characters, no control
    /// character (it is percent-encoded into the path, so any other character is safe).
    static func isSlug(_ text: String) -> Bool {
        !text.isEmpty && text.unicodeScalars.count <= 1000
            && !text.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }
}
