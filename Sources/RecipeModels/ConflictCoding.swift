import Foundation

// The stored form of a recipe's conflict, one JSON text kept in a TEXT column. Keys are fixed and written sorted,
// so equal conflicts are equal texts:
//   {"kind":"deletedOnServer"}   {"kind":"deletedHere"}
//   {"kind":"fields","fields":[{"field":"ingredient 3","base":V,"mine":V,"theirs":V}, …]}
// where a value V is null (absent), {"text":"…"}, {"elements":["…",…]}, {"image":I}, a step in a section
// {"step":{"section":"…","text":"…"}} or a run of steps of which one is in a section {"steps":[S,…]} (S a step as
// RecipeFields' stored form writes it: its text, or {"section","text"}), and an image I is
// {"sha256":"…","url":"…"} (the server's) or {"sha256":"…","format":"jpeg","bytes":N,"file":"…"} (local; "file"
// left out when there is no local copy).

extension RecipeConflict: Codable {
    /// The stable JSON text the store keeps.
    public var storedJSON: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding strings, numbers and arrays of them cannot fail.
        guard let data = try? encoder.encode(self) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    /// Reads a conflict back from `storedJSON`'s text.
    public init(storedJSON text: String) throws(ConflictError) {
        do {
            self = try JSONDecoder().decode(RecipeConflict.self, from: Data(text.utf8))
        } catch let error as ConflictError {
            throw error
        } catch {
            throw .unreadable(String(describing: error))
        }
    }

    private enum Key: String, CodingKey { case kind, fields }

    /// Decodes the stored form.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        switch try container.decode(String.self, forKey: .kind) {
        case "fields": self = .fields(try container.decode([FieldConflict].self, forKey: .fields))
        case "deletedOnServer": self = .deletedOnServer
        case "deletedHere": self = .deletedHere
        case let kind: throw ConflictError.unreadable("unknown kind '\(kind)'")
        }
    }

    /// Encodes the stored form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        switch self {
        case .fields(let conflicts):
            try container.encode("fields", forKey: .kind)
            try container.encode(conflicts, forKey: .fields)
        case .deletedOnServer: try container.encode("deletedOnServer", forKey: .kind)
        case .deletedHere: try container.encode("deletedHere", forKey: .kind)
        }
    }
}

extension FieldConflict: Codable {
    private enum Key: String, CodingKey { case field, base, mine, theirs }

    /// Decodes `{"field","base","mine","theirs"}`; the field by its name.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        let name = try container.decode(String.self, forKey: .field)
        guard let field = ConflictField(name: name) else { throw ConflictError.unreadable("unknown field '\(name)'") }
        self.init(
            field: field, base: try container.decode(ConflictValue.self, forKey: .base),
            mine: try container.decode(ConflictValue.self, forKey: .mine),
            theirs: try container.decode(ConflictValue.self, forKey: .theirs))
    }

    /// Encodes `{"field","base","mine","theirs"}`, nulls included.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(field.name, forKey: .field)
        try container.encode(base, forKey: .base)
        try container.encode(mine, forKey: .mine)
        try container.encode(theirs, forKey: .theirs)
    }
}

extension ConflictValue: Codable {
    private enum Key: String, CodingKey { case text, elements, image, step, steps }

    /// Decodes null, `{"text"}`, `{"elements"}`, `{"image"}`, `{"step"}` or `{"steps"}`.
    public init(from decoder: any Decoder) throws {
        if try decoder.singleValueContainer().decodeNil() {
            self = .absent
            return
        }
        let container = try decoder.container(keyedBy: Key.self)
        if let text = try container.decodeIfPresent(String.self, forKey: .text) {
            self = .text(text)
        } else if let elements = try container.decodeIfPresent([String].self, forKey: .elements) {
            self = .elements(elements)
        } else if let image = try container.decodeIfPresent(RecipeImage.self, forKey: .image) {
            self = .image(image)
        } else if let step = try container.decodeIfPresent(StoredStep.self, forKey: .step) {
            self = .step(step.step)
        } else if let steps = try container.decodeIfPresent([StoredStep].self, forKey: .steps) {
            self = .steps(steps.map(\.step))
        } else {
            throw ConflictError.unreadable("a value is none of text, elements, image or null")
        }
    }

    /// Encodes null, `{"text"}`, `{"elements"}`, `{"image"}`, `{"step"}` or `{"steps"}`.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .absent:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .text(let text):
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(text, forKey: .text)
        case .elements(let elements):
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(elements, forKey: .elements)
        case .image(let image):
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(image, forKey: .image)
        case .step(let step):
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(StoredStep(step), forKey: .step)
        case .steps(let steps):
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(steps.map(StoredStep.init), forKey: .steps)
        }
    }
}

extension RecipeImage: Codable {
    private enum Key: String, CodingKey { case sha256, url, format, bytes, file }

    /// Decodes `{"sha256","url"}` (the server's) or `{"sha256","format","bytes","file"?}` (local).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        let sha256 = try container.decode(String.self, forKey: .sha256)
        guard Self.isSHA256(sha256) else { throw ConflictError.unreadable("'\(sha256)' is not a SHA-256") }
        if let url = try container.decodeIfPresent(String.self, forKey: .url) {
            guard let image = RecipeImage(serverURL: url), image.sha256 == sha256.lowercased() else {
                throw ConflictError.unreadable("the image URL '\(url)' does not end in its SHA-256")
            }
            self = image
        } else {
            self.init(ImageReference(
                sha256: sha256, format: try container.decode(ImageFormat.self, forKey: .format),
                byteCount: try container.decode(Int64.self, forKey: .bytes),
                localFileName: try container.decodeIfPresent(String.self, forKey: .file)))
        }
    }

    /// Encodes `{"sha256","url"}` or `{"sha256","format","bytes","file"?}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(sha256, forKey: .sha256)
        switch source {
        case .server(let url):
            try container.encode(url, forKey: .url)
        case .local(let reference):
            try container.encode(reference.format, forKey: .format)
            try container.encode(reference.byteCount, forKey: .bytes)
            try container.encodeIfPresent(reference.localFileName, forKey: .file)
        }
    }
}
