import ArgumentParser
import Foundation
import RecipeModels

/// `--servings N | --scale F` and `--units metric|us`, for the commands that show or write a recipe's quantities
/// (`show`, `export`): the stored recipe is never changed.
struct ScaleOptions: ParsableArguments {
    /// What the options say, for a command's discussion.
    static let discussion = """
        With --servings N the ingredients' quantities and the yield are multiplied by N over the yield's own number \
        ("4 servings" and --servings 8: twice); with --scale F by F; either way by 0.001 to 1000 times. A quantity is \
        the number an ingredient starts with: 2, 1.5, 1,5, 1/2, ½, 1 1/2, 2-3. Text without one is left as written. \
        With --units metric or --units us, volumes and weights are in that system (1 cup → 237 ml, 200 g → 7 oz), and \
        oven temperatures in the steps (180 °C → 350 °F); a volume stays a volume (a cup of flour is 237 ml, not grams: \
        its weight depends on the flour).
        """

    @Option(name: .long, help: ArgumentHelp("Scale the quantities to N servings (from the yield's number).", valueName: "N"))
    var servings: Double?
    @Option(name: .long, help: ArgumentHelp("Scale the quantities by F, e.g. 1.5.", valueName: "F")) var scale: Double?
    @Option(name: .long, help: ArgumentHelp("Volumes, weights and oven temperatures in metric or us measures.",
                                            valueName: "metric|us"))
    var units: UnitSystem?

    func validate() throws {
        if servings != nil && scale != nil { throw ValidationError("give --servings or --scale, not both") }
        if let servings, !(servings > 0 && servings.isFinite) { throw ValidationError("--servings must be a number above 0, e.g. 8") }
        if let scale, !(scale > 0 && scale.isFinite) { throw ValidationError("--scale must be a number above 0, e.g. 1.5") }
        if let scale, !QuantityScaling.factors.contains(scale) {
            do throws(ScalingError) {
                _ = try QuantityScaling.factor(.factor(scale), yield: "")
            } catch {
                throw ValidationError("--scale: " + error.message)
            }
        }
    }

    /// The scaling asked for, if any.
    var request: ScaleRequest? { servings.map(ScaleRequest.servings) ?? scale.map(ScaleRequest.factor) }

    /// The factor `request` comes to for `recipe`, or a message saying why it has none.
    static func factor(_ request: ScaleRequest, of recipe: Recipe) throws -> Double {
        do {
            return try QuantityScaling.factor(request, yield: recipe.recipeYield)
        } catch {
            throw CommandLineError("recipe \(recipe.id): \(error.message)")
        }
    }
}

extension UnitSystem: ExpressibleByArgument {}
