import ArgumentParser
import Foundation
import RecipeModels

extension ExportFormat: ExpressibleByArgument {}

/// `recipes export [<id>...] [--out DIR] [--format jsonld|markdown] [--servings N | --scale F] [--units metric|us]`:
/// recipes as schema.org JSON-LD or Markdown, their quantities as kept or as `show` would show them.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export recipes as schema.org JSON-LD (one array on stdout, or one file per recipe with --out) or Markdown.",
        discussion: """
            Without ids: every recipe that is not deleted. With --out DIR: DIR/<id>-<title>.json (or .md) per recipe \
            and the local image copied beside it (referred to by its file name); prints the files written. On stdout \
            a local image is referred to by a file: URL, an image the server has by its URL. `recipes import` reads \
            the JSON-LD back into the same recipes (as new ones), every property kept. --format markdown writes a \
            readable page per recipe (title, times, yield, ingredients, sections and steps, nutrition, image link). \
            --servings, --scale and --units write the quantities as `show` shows them (the stored recipes unchanged).
            """ + "\n\n" + ScaleOptions.discussion)

    @ParentCommand var root: RecipesCommand
    @OptionGroup var global: GlobalOptions
    @Option(name: .long, help: ArgumentHelp("Write one file per recipe into DIR.", valueName: "DIR")) var out: String?
    @Option(name: .long, help: "jsonld (default) or markdown.") var format: ExportFormat = .jsonld
    @OptionGroup var scaling: ScaleOptions
    @Argument(help: ArgumentHelp(RecipeReference.argumentsHelp), transform: RecipeReference.argument)
    var ids: [RecipeReference] = []

    func validate() throws {
        if out?.isEmpty == true { throw ValidationError("--out needs a folder") }
    }

    func run() throws {
        let context = CommandContext(homeOption: Self.homeOption(global, root))
        try context.reportingFailures {
            let store = try context.openStore(.readOnly)
            let export = RecipeExport(store: store, format: format, request: scaling.request, units: scaling.units)
            let recipes = try export.recipes(store.recipeIDs(ids))
            if let out {
                for path in try export.write(recipes, to: out) { context.console.out("exported \(path)\n") }
            } else {
                context.console.out(String(decoding: try export.array(recipes), as: UTF8.self))
            }
        }
    }
}
