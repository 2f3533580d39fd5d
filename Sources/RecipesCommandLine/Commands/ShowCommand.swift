import ArgumentParser
import Foundation
import RecipeModels

/// `recipes show <id> [--servings N | --scale F] [--units metric|us]`: every field of one recipe, its quantities
/// scaled and its measures converted when asked.
struct ShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Show every field of a recipe, its image and its sync state.",
        discussion: """
            With --servings N the ingredients' quantities and the yield are multiplied by N over the yield's own \
            number ("4 servings" and --servings 8: twice); with --scale F by F; either way by 0.001 to 1000 times. A \
            quantity is the number an ingredient starts with: 2, 1.5, 1,5, 1/2, ½, 1 1/2, 2-3. Text without one is \
            shown as written. With --units metric or --units us, volumes and weights are shown in that system             (1 cup → 237 ml, 200 g → 7 oz), and oven temperatures in the steps (180 °C → 350 °F); a volume of             something weighed (a cup of flour) stays as written, since its weight depends on what it is.
            """)

    @ParentCommand var root: RecipesCommand
    @OptionGroup var global: GlobalOptions
    @Flag(name: .long, help: "Print one JSON object.") var json = false
    @Option(name: .long, help: ArgumentHelp("Scale the quantities to N servings (from the yield's number).", valueName: "N"))
    var servings: Double?
    @Option(name: .long, help: ArgumentHelp("Scale the quantities by F, e.g. 1.5.", valueName: "F")) var scale: Double?
    @Option(name: .long, help: ArgumentHelp("Show volumes, weights and oven temperatures in metric or us measures.",
                                            valueName: "metric|us"))
    var units: UnitSystem?
    @Argument(help: ArgumentHelp(RecipeReference.argumentHelp), transform: RecipeReference.argument)
    var id: RecipeReference

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

    func run() throws {
        let context = CommandContext(homeOption: Self.homeOption(global, root))
        try context.reportingFailures {
            let store = try context.openStore(.readOnly)
            var formatter = RecipeFormatter(store: store, now: Date())
            formatter.server = context.serverKindOfVersions()
            formatter.hasServer = context.hasServer()
            let recipe = try store.recipe(id: store.recipeID(id))
            let request: ScaleRequest? = servings.map(ScaleRequest.servings) ?? scale.map(ScaleRequest.factor)
            let factor = try request.map { request throws in try Self.factor(request, of: recipe) }
            context.console.out(json ? formatter.showJSON(recipe, scale: factor, units: units)
                : formatter.show(recipe, scale: factor, units: units))
        }
    }

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
