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
    /// The factors a recipe is scaled by: from a thousandth (a gram of a kilo) to a thousand times (a pot for a
    /// hundred from one for four is 25). Outside them no kitchen is meant, and the scaled numbers would outgrow what
    /// they are written with.
    public static let factors: ClosedRange<Double> = 0.001...1000

    /// The factor `request` comes to for a recipe whose yield is `yield`: servings over the yield's number, or the
    /// factor asked for. Throws when the number asked for is not above zero, the yield has no number to scale from, or
    /// the factor is outside `factors`.
    public static func factor(_ request: ScaleRequest, yield: String) throws(ScalingError) -> Double {
        switch request {
        case .factor(let factor):
            guard factor > 0, factor.isFinite else {
                throw ScalingError(message: "a scale must be a number above 0, e.g. 1.5 or 0.5")
            }
            guard factors.contains(factor) else {
                throw ScalingError(message: "a scale of \(written(factor)) is \(factor < 1 ? "too small" : "too large"); "
                    + "scale by \(written(factors.lowerBound)) to \(written(factors.upperBound)), e.g. 1.5 or 0.5")
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
            let factor = servings / base
            guard factors.contains(factor) else {
                throw ScalingError(message: "\(written(servings)) servings from the yield \"\(yield)\" is "
                    + "\(factor < 1 ? "too small" : "too large") a scale; ask for \(written(base * factors.lowerBound)) "
                    + "to \(written(base * factors.upperBound)) servings")
            }
            return factor
        }
    }

    /// A number as a person typed it: `8`, `1.5`, `1e+20` (no rounding to a cook's precision).
    static func written(_ value: Double) -> String {
        if value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
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
