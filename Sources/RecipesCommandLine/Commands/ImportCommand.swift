import ArgumentParser
import Foundation
import RecipeStore

/// `recipes import FILE|URL... | -`: schema.org Recipe JSON-LD files, saved recipe pages (JSON-LD, microdata, RDFa),
/// pages on the web and Paprika's exports become recipes, every property kept; a page imported again updates its
/// recipe.
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import recipes from JSON-LD files, saved recipe pages, web addresses or Paprika exports (- reads stdin).",
        discussion: """
            Understands a Recipe object, an array of them, an @graph, a page's mainEntity, and the \
            <script type="application/ld+json"> elements of a page: what recipe sites, Mealie, Tandoor, Nextcloud \
            Cookbook and `recipes export` publish; a page without them is read for a schema.org Recipe in microdata \
            (itemscope itemtype=".../Recipe", itemprop) or RDFa (typeof="Recipe", property). A Paprika export \
            (.paprikarecipes) imports every recipe in it, photos included; imported again, each recipe updates the one \
            of its Paprika uid. An http:// or https:// address is fetched (TLS verified, at most 5 \
            redirects, 8 MiB), and so is its image. Every property of the recipe is kept: the ones recipes reads as \
            fields, and every other as it came, sent back unchanged by sync and export. A recipe's url is --url, else \
            the page's canonical link, else its own url, else the address fetched. A recipe whose url one here has \
            already updates that recipe in one revision ("updated 3: …"), or with --as-new becomes a second one. \
            An image given as a local path (relative to the file) or file: URL is attached; in a file, a web URL is \
            kept as its remote image. An input that is not a recipe or is malformed is reported with the reason and \
            nothing of it is imported; the other inputs are. Prints "imported <id>: <title>" per recipe.

            Exit status: 0 every input imported, 1 some input failed.
            """)

    @ParentCommand var root: RecipesCommand
    @OptionGroup var global: GlobalOptions
    @Flag(name: .customLong("dry-run"), help: "Print what would be imported; change nothing.") var dryRun = false
    @Flag(name: .customLong("as-new"), help: "Import a page a recipe here has already as a second recipe.") var asNew = false
    @Option(name: .long, help: ArgumentHelp("The address of the page a saved file came from (one input only).", valueName: "URL"))
    var url: String?
    @Argument(help: ArgumentHelp("JSON-LD or HTML files, .paprikarecipes exports, web addresses; - for standard input.", valueName: "FILE|URL"))
    var files: [String]

    func validate() throws {
        if files.isEmpty { throw ValidationError("give at least one file or address to import (- reads standard input)") }
        if let url {
            guard ReplCommandSpec.isWebAddress(url) else {
                throw ValidationError("--url takes the page's http:// or https:// address, not \"\(url)\"")
            }
            if files.count != 1 { throw ValidationError("--url names the page of one input; give one file with it") }
        }
    }

    func run() async throws {
        let context = CommandContext(homeOption: Self.homeOption(global, root))
        var failed = false
        try await context.reportingFailures {
            let configuration = try context.configuration()
            var importer = RecipeImport(
                store: try context.openStore(), maxImageBytes: configuration.imageMaxBytes,
                workingDirectory: FileManager.default.currentDirectoryPath,
                readStandardInput: { FileHandle.standardInput.readDataToEndOfFile() })
            importer.makeFetch = {
                try PageFetch.make(caBundlePath: configuration.caBundle, userAgent: "recipes/\(RecipesCommand.version)")
            }
            importer.pageURL = url
            importer.asNew = asNew
            for outcome in await importer.run(files, dryRun: dryRun) {
                switch outcome {
                case .imported(let lines, let notes):
                    for line in lines { context.console.out(line + "\n") }
                    for note in notes { context.console.err("recipes: note: \(note)\n") }
                case .failed(let message):
                    context.console.err("recipes: \(message)\n")
                    failed = true
                }
            }
        }
        if failed { throw ExitCode.failure }
    }
}
