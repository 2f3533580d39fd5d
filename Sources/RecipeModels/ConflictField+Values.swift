/// The value of a field that merges as one value (everything but the places of the ingredient and step lists), read
/// from and written into recipe fields as a conflict holds it.
extension ConflictField {
    /// The text fields, with where each is kept.
    static let textFields: [(field: ConflictField, path: any WritableKeyPath<RecipeFields, String> & Sendable)] = [
        (.title, \.title), (.description, \.description), (.recipeYield, \.recipeYield), (.keywords, \.keywords),
        (.prepTime, \.details.prepTime), (.cookTime, \.details.cookTime), (.totalTime, \.details.totalTime),
        (.author, \.details.author), (.url, \.details.url),
    ]

    /// The list fields that merge as one value each, with where each is kept.
    static let listFields: [(field: ConflictField, path: any WritableKeyPath<RecipeFields, [String]> & Sendable)] = [
        (.recipeCategory, \.details.recipeCategory), (.recipeCuisine, \.details.recipeCuisine), (.tool, \.details.tool),
        (.suitableForDiet, \.details.suitableForDiet),
    ]

    /// This value field's value in `fields`: a text (`absent` for a nutrition or kept property that is not there), a
    /// list's elements, or the image; `absent` for a list place.
    func value(in fields: RecipeFields) -> ConflictValue {
        if let text = Self.textFields.first(where: { $0.field == self }) { return .text(fields[keyPath: text.path]) }
        if let list = Self.listFields.first(where: { $0.field == self }) { return .elements(fields[keyPath: list.path]) }
        switch self {
        case .image: return fields.image.map(ConflictValue.image) ?? .absent
        case .nutrition(let key): return fields.details.nutrition[key].map(ConflictValue.text) ?? .absent
        case .property(let key): return fields.received.other[key].map(ConflictValue.text) ?? .absent
        default: return .absent
        }
    }

    /// Sets this value field of `fields` to `value` (the inverse of `value(in:)`; `absent` clears).
    func set(_ value: ConflictValue, in fields: inout RecipeFields) {
        let text: String? = if case .text(let text) = value { text } else { nil }
        if let field = Self.textFields.first(where: { $0.field == self }) {
            fields[keyPath: field.path] = text ?? ""
            return
        }
        if let field = Self.listFields.first(where: { $0.field == self }) {
            fields[keyPath: field.path] = value.listElements
            return
        }
        switch self {
        case .image: fields.image = if case .image(let image) = value { image } else { nil }
        case .nutrition(let key): fields.details.nutrition[key] = text
        case .property(let key): fields.received.other[key] = text
        default: break
        }
    }
}
