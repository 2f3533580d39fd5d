/// What `recipes show --servings N | --scale F` asks for.
public enum ScaleRequest: Sendable, Equatable {
    /// As many servings as this, the factor taken from the yield's own number.
    case servings(Double)
    /// This factor.
    case factor(Double)
}

/// Why a recipe could not be scaled: one line saying what to do.
public struct ScalingError: Error, Sendable, Equatable {
    /// The message.
    public var message: String
}

extension QuantityScaling {
    /// The factor `request` comes to for a recipe whose yield is `yield`: servings over the yield's number, or the
    /// factor asked for. Throws when the number asked for is not above zero, or the yield has no number to scale from.
    public static func factor(_ request: ScaleRequest, yield: String) throws(ScalingError) -> Double {
        switch request {
        case .factor(let factor):
            guard factor > 0, factor.isFinite else {
                throw ScalingError(message: "a scale must be a number above 0, e.g. 1.5 or 0.5")
            }
            return factor
        case .servings(let servings):
            guard servings > 0, servings.isFinite else {
                throw ScalingError(message: "servings must be a number above 0, e.g. 8")
            }
            guard let base = Self.servings(in: yield), base > 0 else {
                let what = yield.isEmpty ? "has no yield" : "has the yield \"\(yield)\", with no number"
                throw ScalingError(message: "the recipe \(what) to scale from; use --scale (e.g. --scale 2), or set its yield")
            }
            return servings / base
        }
    }

    /// `content` with its ingredients' leading quantities and its yield's number multiplied by `factor`; text that
    /// holds no quantity is left as written.
    public static func scaled(_ content: RecipeContent, by factor: Double) -> RecipeContent {
        var scaled = content
        scaled.ingredients = content.ingredients.map { scale(ingredient: $0, by: factor) }
        scaled.recipeYield = scale(yield: content.recipeYield, by: factor)
        return scaled
    }
}
