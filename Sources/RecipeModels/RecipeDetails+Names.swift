/// The diets of schema.org's `RestrictedDiet` as a person names them (`vegan`, `gluten-free`) and as a recipe keeps
/// them (`https://schema.org/VeganDiet`).
public enum DietName {
    /// Each known diet: its name and its schema.org URL.
    public static let known: [(name: String, url: String)] = [
        ("diabetic", "DiabeticDiet"), ("gluten-free", "GlutenFreeDiet"), ("halal", "HalalDiet"), ("hindu", "HinduDiet"),
        ("kosher", "KosherDiet"), ("low-calorie", "LowCalorieDiet"), ("low-fat", "LowFatDiet"),
        ("low-lactose", "LowLactoseDiet"), ("low-salt", "LowSaltDiet"), ("vegan", "VeganDiet"),
        ("vegetarian", "VegetarianDiet"),
    ].map { ($0.0, "https://schema.org/" + $0.1) }

    /// What a recipe keeps for a diet typed as `typed`: a known diet's URL (its name in any case, with blanks, dashes
    /// or "diet" or not: `Gluten free`, `glutenfree`, `VeganDiet`), anything else as typed.
    public static func stored(_ typed: String) -> String {
        let key = squeezed(typed)
        return known.first { squeezed($0.name) == key || squeezed($0.name) + "diet" == key }?.url ?? typed
    }

    /// How a kept diet reads: a known diet's URL as its name (`vegan`), anything else as written.
    public static func display(_ stored: String) -> String {
        let plain = stored.hasPrefix("http://") ? "https://" + stored.dropFirst(7) : stored
        return known.first { $0.url == plain }?.name ?? stored
    }

    private static func squeezed(_ text: String) -> String {
        String(text.lowercased().filter { $0.isLetter })
    }
}

/// The properties of schema.org's `NutritionInformation` as a person names them (`fat`, `protein`) and as a recipe
/// keeps them (`fatContent`, `proteinContent`).
public enum NutritionName {
    /// The properties, in schema.org's order.
    public static let properties = [
        "calories", "carbohydrateContent", "cholesterolContent", "fatContent", "fiberContent", "proteinContent",
        "saturatedFatContent", "servingSize", "sodiumContent", "sugarContent", "transFatContent", "unsaturatedFatContent",
    ]

    /// How a property reads to a person: `Fat` for `fatContent`, `Saturated fat`, `Serving size`; a property schema.org
    /// does not name as it is.
    public static func label(_ property: String) -> String {
        let labels = [
            "calories": "Calories", "carbohydrateContent": "Carbohydrates", "cholesterolContent": "Cholesterol",
            "fatContent": "Fat", "fiberContent": "Fiber", "proteinContent": "Protein", "saturatedFatContent": "Saturated fat",
            "servingSize": "Serving size", "sodiumContent": "Sodium", "sugarContent": "Sugar", "transFatContent": "Trans fat",
            "unsaturatedFatContent": "Unsaturated fat",
        ]
        return labels[property] ?? property
    }

    /// The property `typed` names: a property's name in any case, or without `Content` (`fat`, `saturatedFat`,
    /// `saturated-fat`), or `carbs`, `fibre`, `salt` (sodium); nil for anything else.
    public static func property(_ typed: String) -> String? {
        let key = typed.lowercased().filter { $0.isLetter }
        let aliases = ["carbs": "carbohydrateContent", "carbohydrates": "carbohydrateContent", "fibre": "fiberContent",
                       "salt": "sodiumContent", "serving": "servingSize", "kcal": "calories", "energy": "calories"]
        if let alias = aliases[key] { return alias }
        return properties.first { property in
            let lower = property.lowercased()
            return lower == key || (lower.hasSuffix("content") && String(lower.dropLast(7)) == key)
        }
    }
}
