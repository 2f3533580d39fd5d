import Foundation

/// A recipe read from a schema.org `Recipe` (in JSON-LD, microdata or RDFa) or from Paprika's export: its content,
/// where its image is, and its properties as written.
public struct ImportedRecipe: Sendable, Equatable {
    /// The fields, ingredients, steps and details.
    public var content: RecipeContent
    /// The image the document refers to, if any.
    public var image: ImageSource?
    /// Every other property of the recipe, and the forms of those read as fields, as the document wrote them.
    public var received: ReceivedProperties
    /// Paprika's `uid` of a recipe from Paprika's export: what says which recipe here an export imported again updates.
    public var paprikaUID: String?

    /// Creates an imported recipe.
    public init(content: RecipeContent, image: ImageSource? = nil, received: ReceivedProperties = ReceivedProperties()) {
        self.content = content
        self.image = image
        self.received = received
    }
}

/// Where an imported recipe's image is.
public enum ImageSource: Sendable, Equatable {
    /// A file on this machine: a path as written (relative ones are taken from the imported file's folder) or the
    /// path of a `file:` URL.
    case local(path: String)
    /// An `http:` or `https:` URL, kept as the recipe's remote image.
    case remote(url: String)
    /// The image's bytes, carried in the imported file itself (a Paprika photo).
    case embedded(Data)
}

/// Why a file could not be imported: one line saying what is wrong and what to do.
public struct ImportError: Error, Sendable, Equatable {
    /// The message, without the file's name (the caller puts it in front).
    public var message: String

    /// Creates an import error.
    public init(_ message: String) { self.message = message }
}
