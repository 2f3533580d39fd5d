import ArgumentParser
import Foundation
import RecipeStore

/// `recipes import FILE... | -`: schema.org Recipe JSON-LD files and saved recipe pages become new recipes.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import schema.org recipes from JSON-LD files or saved recipe web pages (- reads stdin).",
        discussion: """
            Understands a Recipe object, an array of them, an @graph, a page's mainEntity, and the \
            <script type="application/ld+json"> elements of a saved .html page: what recipe sites, Mealie, Tandoor, \
            Nextcloud Cookbook and `recipes export` publish. Each recipe becomes a new, pending recipe; an image \
            given as a local path (relative to the file) or file: URL is attached, a web URL is kept as its remote \
            image. A file that is not a recipe or is malformed is reported with the reason and nothing of it is \
            imported; the other files are. Prints "imported <id>: <title>" per recipe.

            Exit status: 0 every file imported, 1 some file failed.
            """)

    @ParentCommand var root: RecipesCommand
    @OptionGroup var global: GlobalOptions
    @Flag(name: .customLong("dry-run"), help: "Print what would be imported; change nothing.") var dryRun = false
    @Argument(help: ArgumentHelp("JSON-LD or HTML files; - for standard input.", valueName: "FILE")) var files: [String]

    func validate() throws {
        if files.isEmpty { throw ValidationError("give at least one file to import (- reads standard input)") }
    }

    func run() throws {
        let context = CommandContext(homeOption: Self.homeOption(global, root))
        var failed = false
        try context.reportingFailures {
            let importer = RecipeImport(
                store: try context.openStore(), maxImageBytes: try context.configuration().imageMaxBytes,
                workingDirectory: FileManager.default.currentDirectoryPath,
                readStandardInput: { FileHandle.standardInput.readDataToEndOfFile() })
            for outcome in importer.run(files, dryRun: dryRun) {
                switch outcome {
                case .imported(let lines):
                    for line in lines { context.console.out(line + "\n") }
                case .failed(let message):
                    context.console.err("recipes: \(message)\n")
                    failed = true
                }
            }
        }
        if failed { throw ExitCode.failure }
    }
}
