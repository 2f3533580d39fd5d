/// A recipe read from a schema.org `Recipe` in JSON-LD: its content and where its image is.
public struct ImportedRecipe: Sendable, Equatable {
    /// The fields, ingredients and steps.
    public var content: RecipeContent
    /// The image the document refers to, if any.
    public var image: ImageSource?

    /// Creates an imported recipe.
    public init(content: RecipeContent, image: ImageSource? = nil) {
        self.content = content
        self.image = image
    }
}

/// Where an imported recipe's image is.
public enum ImageSource: Sendable, Equatable {
    /// A file on this machine: a path as written (relative ones are taken from the imported file's folder) or the
    /// path of a `file:` URL.
    case local(path: String)
    /// An `http:` or `https:` URL, kept as the recipe's remote image.
    case remote(url: String)
}

/// Why a file could not be imported: one line saying what is wrong and what to do.
public struct ImportError: Error, Sendable, Equatable {
    /// The message, without the file's name (the caller puts it in front).
    public var message: String

    /// Creates an import error.
    public init(_ message: String) { self.message = message }
}
