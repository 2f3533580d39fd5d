import Foundation
import RecipeStore

extension ReplSession {
    /// `edit <id>`, `cook`, `search`, `import` and `export`.
    func executeEditingCommand(_ command: ReplCommand) async throws -> LineResult {
        switch command {
        case .editInEditor(let reference):
            let id = try store.recipeID(reference)
            // Lines of a background sync wait while the editor owns the terminal.
            jobs.lines.setMode(.held)
            defer { jobs.lines.setMode(.direct) }
            var editing = RecipeEditing(
                store: try writableStore(), editor: EditorProcess(environment: environment), console: console, ask: ask)
            editing.dialect = dialect
            console.out(try await editing.edit(id) + "\n")
        case .applyCard(let reference, let path):
            let id = try store.recipeID(reference)
            var editing = RecipeEditing(
                store: try writableStore(), editor: EditorProcess(environment: environment), console: console, ask: ask)
            editing.dialect = dialect
            console.out(try editing.apply(from: expandTilde(path), to: id) + "\n")
        case .cook(let reference, let scale):
            let recipe = try store.recipe(id: store.recipeID(reference))
            let text = CookText(recipe, scale: try scale.map { try ScaleOptions.factor($0, of: recipe) }, units: nil)
            guard interactive, environment["TERM"] != "dumb" else {
                console.out(text.plain())
                return .succeeded
            }
            // Lines of a background sync wait while the cook mode owns the screen.
            jobs.lines.setMode(.held)
            defer { jobs.lines.setMode(.direct) }
            if case .signal(let number) = try CookTerminal.run(text) {
                kill(getpid(), number)  // the terminal is as it was: the signal now does what it does to the REPL
            }
        case .search(let words):
            let result = try store.search(words)
            let bold = SearchFormatter.wantsBold(stdoutIsTerminal: interactive, environment: environment)
            let formatter = SearchFormatter(bold: bold, columns: interactive ? TerminalSize.current().columns : nil)
            console.out(formatter.text(result, words: words, limit: 20))
        case .importFiles(let paths, let dryRun, let asNew):
            var importer = RecipeImport(
                store: try writableStore(), maxImageBytes: configuration.imageMaxBytes,
                workingDirectory: FileManager.default.currentDirectoryPath, readStandardInput: { Data() })
            let configuration = self.configuration
            importer.makeFetch = {
                try PageFetch.make(caBundlePath: configuration.caBundle, userAgent: "recipes/\(RecipesCommand.version)")
            }
            importer.asNew = asNew
            var failed = false
            for outcome in await importer.run(paths.map { RecipeImport.isWebAddress($0) ? $0 : expandTilde($0) }, dryRun: dryRun) {
                switch outcome {
                case .imported(let lines, let notes):
                    console.out(lines.map { $0 + "\n" }.joined())
                    console.err(notes.map { "note: \($0)\n" }.joined())
                case .failed(let message):
                    console.err("error: \(message)\n")
                    failed = true
                }
            }
            return failed ? .failed : .succeeded
        case .export(let ids, let folder, let format):
            let export = RecipeExport(store: store, format: format)
            let recipes = try export.recipes(store.recipeIDs(ids))
            if let folder {
                for path in try export.write(recipes, to: expandTilde(folder)) { console.out("exported \(path)\n") }
            } else {
                console.out(String(decoding: try export.array(recipes), as: UTF8.self))
            }
        default:
            break
        }
        return .succeeded
    }
}
