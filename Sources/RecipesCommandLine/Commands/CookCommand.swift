import ArgumentParser
import Foundation
import RecipeModels
#if canImport(Glibc)
import Glibc
#endif

/// `recipes cook <id> [--servings N | --scale F] [--units metric|us]`: a recipe as a cook follows it — one step at a
/// time on a terminal, the whole of it in order on a pipe.
struct CookCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cook", abstract: "Follow a recipe step by step: its ingredients, then one step at a time with a timer.",
        discussion: """
            On a terminal: the ingredients first (mise en place), then one step at a time ("Step 2 of 7 · Section") \
            with the ingredients it uses below it. Keys: → n or space next, ← or p back, i all ingredients, t start \
            the timer of a time the step names ("bake for 25 minutes"; a range such as 10-12 minutes counts the \
            longer), q quit (asked again while a timer runs), Ctrl-C leaves at once. A timer counts down on every \
            screen and rings the terminal's bell when it ends. On a pipe (or without a terminal to read keys from): the \
            title, the yield, the ingredients by section, then each step numbered, followed by the ingredients it uses.
            """ + "\n\n" + ScaleOptions.discussion)

    @ParentCommand var root: RecipesCommand
    @OptionGroup var global: GlobalOptions
    @OptionGroup var scaling: ScaleOptions
    @Argument(help: ArgumentHelp(RecipeReference.argumentHelp), transform: RecipeReference.argument)
    var id: RecipeReference

    func run() throws {
        let context = CommandContext(homeOption: Self.homeOption(global, root))
        var ending = CookTerminal.Ending.quit
        try context.reportingFailures {
            let store = try context.openStore(.readOnly)
            let recipe = try store.recipe(id: store.recipeID(id))
            let factor = try scaling.request.map { request throws in try ScaleOptions.factor(request, of: recipe) }
            let text = CookText(recipe, scale: factor, units: scaling.units)
            if isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1 && context.environment["TERM"] != "dumb" {
                ending = try CookTerminal.run(text)
            } else {
                context.console.out(text.plain())
            }
        }
        if ending != .quit { throw ExitCode(ending.status) }
    }
}
