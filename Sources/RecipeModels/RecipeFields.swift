/// The fields of a recipe that two-way sync merges: what a person writes, without ids or bookkeeping.
///
/// Two `RecipeFields` are equal when every field is; images compare by SHA-256 alone (see `RecipeImage`), so a
/// local image and the server's URL of the same bytes are the same image. The other properties (`received.other`)
/// are fields; the forms of the known ones (`received.forms`) say how they were written, not what they say, and do not
/// count.
public struct RecipeFields: Sendable, Equatable {
    /// The recipe's name.
    public var title: String
    /// Free text describing the dish; empty when unset.
    public var description: String
    /// How much it makes, e.g. "4 servings"; empty when unset.
    public var recipeYield: String
    /// Comma-separated keywords, merged as one value; empty when unset.
    public var keywords: String
    /// The ingredient lines, in order.
    public var ingredients: [String]
    /// The instruction steps, in order, each with its section's name.
    public var steps: [Step]
    /// Times, category, cuisine, author, url, nutrition, tools and diets.
    public var details: RecipeDetails
    /// The other properties (merged per key) and the forms of the known ones (not compared).
    public var received: ReceivedProperties
    /// The attached image, if any.
    public var image: RecipeImage?

    /// Creates recipe fields.
    public init(
        title: String, description: String = "", recipeYield: String = "", keywords: String = "",
        ingredients: [String] = [], steps: [Step] = [], details: RecipeDetails = RecipeDetails(),
        received: ReceivedProperties = ReceivedProperties(), image: RecipeImage? = nil
    ) {
        self.title = title
        self.description = description
        self.recipeYield = recipeYield
        self.keywords = keywords
        self.ingredients = ingredients
        self.steps = steps
        self.details = details
        self.received = received
        self.image = image
    }

    /// The fields of `recipe` as this device has them; its image, if any, is a local one.
    public init(_ recipe: Recipe) {
        self.init(
            title: recipe.title, description: recipe.description, recipeYield: recipe.recipeYield,
            keywords: recipe.keywords, ingredients: recipe.ingredients.map(\.text), steps: recipe.steps,
            details: recipe.details, received: recipe.received, image: recipe.image.map(RecipeImage.init))
    }

    /// Whether every field is equal; the forms of the known properties do not count.
    public static func == (lhs: RecipeFields, rhs: RecipeFields) -> Bool {
        lhs.title == rhs.title && lhs.description == rhs.description && lhs.recipeYield == rhs.recipeYield
            && lhs.keywords == rhs.keywords && lhs.ingredients == rhs.ingredients && lhs.steps == rhs.steps
            && lhs.details == rhs.details && lhs.received.other == rhs.received.other && lhs.image == rhs.image
    }

    /// The content a person edits: these fields without the image and the kept properties.
    public var content: RecipeContent {
        RecipeContent(
            title: title, description: description, recipeYield: recipeYield, keywords: keywords,
            ingredients: ingredients, steps: steps, details: details)
    }
}

extension Recipe {
    /// Replaces this recipe's mergeable fields with `fields`, keeping its ids, sync bookkeeping and date.
    ///
    /// A local image is attached as it is; a server image is handed to `serverImage`, which returns the reference
    /// of its downloaded copy (a pull downloads an image before it applies the recipe that names it) or throws,
    /// in which case nothing changes.
    public mutating func apply(
        _ fields: RecipeFields, serverImage: (_ sha256: String, _ url: String) throws -> ImageReference
    ) rethrows {
        var newImage: ImageReference?
        if let picture = fields.image {
            switch picture.source {
            case .local(let reference): newImage = reference
            case .server(let url): newImage = try serverImage(picture.sha256, url)
            }
        }
        title = fields.title
        description = fields.description
        recipeYield = fields.recipeYield
        keywords = fields.keywords
        ingredients = fields.ingredients.map(Ingredient.init(text:))
        steps = fields.steps
        details = fields.details
        received = fields.received
        image = newImage
    }

    /// This recipe with its mergeable fields replaced by `fields` (see `apply(_:serverImage:)`).
    public func applying(
        _ fields: RecipeFields, serverImage: (_ sha256: String, _ url: String) throws -> ImageReference
    ) rethrows -> Recipe {
        var copy = self
        try copy.apply(fields, serverImage: serverImage)
        return copy
    }
}

/// A recipe's image as a merge sees it: identified by the SHA-256 of its bytes, wherever those bytes are.
///
/// "Mine" is usually a local image (an `ImageReference`), "theirs" the server's URL, whose last path segment is
/// the SHA-256. Equality and hashing look at the SHA-256 only: the same bytes are the same image.
public struct RecipeImage: Sendable, Hashable, CustomStringConvertible {
    /// Where the image's bytes are.
    public enum Source: Sendable, Equatable {
        /// A copy on this device, described by its reference.
        case local(ImageReference)
        /// On the server at this absolute URL (`…/v1/images/<sha256>`).
        case server(String)
    }

    /// Lower-case hex SHA-256 of the image bytes: the image's identity.
    public let sha256: String
    /// Where the bytes are.
    public let source: Source

    /// A local image.
    public init(_ reference: ImageReference) {
        sha256 = reference.sha256.lowercased()
        source = .local(reference)
    }

    /// The image at `url` on the server, or nil when its last path segment is not a SHA-256 (64 hex digits).
    public init?(serverURL url: String) {
        // The last path segment, found in the UTF-8 bytes (every pull and chain end reads a URL; splitting the string
        // into characters cost more than the rest of the decoding).
        let bytes = url.utf8
        let end = bytes.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.endIndex
        let start = bytes[..<end].lastIndex(of: UInt8(ascii: "/")).map { bytes.index(after: $0) } ?? bytes.startIndex
        let segment = url[start..<end]
        guard Self.isSHA256(segment) else { return nil }
        sha256 = segment.lowercased()
        source = .server(url)
    }

    /// The local reference, when the image is a local one.
    public var localReference: ImageReference? {
        if case .local(let reference) = source { return reference }
        return nil
    }

    /// The server URL, when the image is the server's.
    public var serverURL: String? {
        if case .server(let url) = source { return url }
        return nil
    }

    /// The SHA-256, which is how conflicts and `status --json` show an image.
    public var description: String { sha256 }

    /// Whether two images are the same bytes, wherever each is.
    public static func == (lhs: RecipeImage, rhs: RecipeImage) -> Bool { lhs.sha256 == rhs.sha256 }

    /// Hashes the SHA-256 only, agreeing with `==`.
    public func hash(into hasher: inout Hasher) { hasher.combine(sha256) }

    /// Whether `text` is 64 hexadecimal digits.
    static func isSHA256(_ text: some StringProtocol) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { byte in
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
        }
    }
}
