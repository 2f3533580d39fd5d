import ArgumentParser
import Foundation
import RecipeModels
import RecipeStore
#if canImport(Glibc)
import Glibc
#endif

/// `recipes edit`: the REPL, interactive on a terminal, scripted on a pipe; `recipes edit <id>`: one recipe in the
/// person's text editor.
struct EditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit",
        abstract: "Edit recipes in an interactive shell (type `help` there), or one recipe in your text editor.",
        discussion: """
            With an id: the recipe opens in $VISUAL, else $EDITOR, else vi, as a recipe card (docs/commands.md describes the \
            format); saving applies it in one change, quitting without saving changes nothing. A card that does not \
            read is offered for another round ("Edit again? [Y/n]", answered on stdin); text that cannot be applied is \
            kept in a file under <home>/edits whose path is printed, and `recipes edit <id> --from FILE` applies it \
            later, merged three ways with what changed meanwhile as the editor's own save merges.

            Without an id, on a terminal: a prompt with line editing, history in <home>/history and tab completion \
            of command names, recipe ids, field names and file paths.

            On a pipe: no prompt, one command per line until end of input; a failed command prints one line on stderr \
            and the rest still run. Exit status 1 if any command failed (with --bail: stop at the first), else 0.

            Words split like a shell: '…' and "…" group words, backslash escapes; lines starting with # are ignored.
            """)

    @ParentCommand var root: RecipesCommand
    @OptionGroup var global: GlobalOptions
    @Flag(name: .long, help: "On a pipe, stop at the first failed command.") var bail = false
    @Option(name: .long, help: ArgumentHelp(
        "Apply the recipe card in FILE (one `edit <id>` kept) to the recipe, merged as the editor's save merges.",
        valueName: "FILE"))
    var from: String?
    @Argument(
        help: "Open this recipe in your text editor: its id as `recipes list` shows it, or its uuid (or the start of it).",
        transform: RecipeReference.argument)
    var id: RecipeReference?

    func validate() throws {
        if from != nil && id == nil { throw ValidationError("--from needs the recipe: `recipes edit <id> --from FILE`") }
        if from == "" { throw ValidationError("--from needs a file: the recipe card to apply") }
    }

    func run() async throws {
        let context = CommandContext(homeOption: Self.homeOption(global, root))
        if let id, let from {
            try context.reportingFailures {
                let store = try context.openStore()
                let editing = RecipeEditing(
                    store: store, editor: EditorProcess(environment: context.environment), console: context.console,
                    ask: { _ in nil })
                context.console.out(try editing.apply(from: from, to: store.recipeID(id)) + "\n")
            }
            return
        }
        if let id {
            try await context.reportingFailures {
                let store = try context.openStore()
                var editing = RecipeEditing(
                    store: store, editor: EditorProcess(environment: context.environment),
                    console: context.console, ask: { question in
                        context.console.err(question)
                        return readLine(strippingNewline: true)
                    })
                editing.problemPrefix = "recipes: "
                context.console.out(try await editing.edit(store.recipeID(id)) + "\n")
            }
            return
        }
        var session: ReplSession?
        try context.reportingFailures {
            let configuration = try context.configuration()
            session = ReplSession(
                store: try context.openStore(.readOnly), configuration: configuration, console: context.console,
                environment: context.environment, interactive: isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1)
        }
        guard let session else { throw ExitCode.failure }
        session.saysWhatItDid = isatty(STDOUT_FILENO) == 1
        if isatty(STDIN_FILENO) == 1 {
            await runInteractive(session, context: context)
        } else {
            try await runScripted(session)
        }
    }

    func runScripted(_ session: ReplSession) async throws {
        var lineNumber = 0
        var failed = false
        while let line = readLine(strippingNewline: true) {
            lineNumber += 1
            switch await session.run(line: line, location: "line \(lineNumber)") {
            case .failed:
                failed = true
                if bail {
                    _ = await session.mayLeave()
                    throw ExitCode.failure
                }
            case .quit:
                if failed || session.leftFailed { throw ExitCode.failure }
                return
            case .succeeded, .skipped:
                break
            }
        }
        _ = await session.mayLeave()  // a background sync still running is waited for
        if failed || session.leftFailed { throw ExitCode.failure }
    }

    func runInteractive(_ session: ReplSession, context: CommandContext) async {
        let store = session.store
        let editor = LineEditor(
            historyPath: context.home.historyURL.path, database: DatabaseFiles(home: context.home),
            environment: context.environment
        ) { before, prefix in
            ReplCompletion.candidates(before: before, prefix: prefix) {
                ((try? store.recipes()) ?? []).filter { $0.sync.state != .deleting }.map { (id: $0.id, title: $0.title) }
            }
        }
        editor.show(session.jobs.lines)
        session.ask = { question in
            while true {
                switch editor.read(prompt: question, remember: false) {
                case .line(let answer): return answer
                case .unreadable: context.console.err("error: " + editor.locale.refusal + "\n")
                case .interrupted, .endOfInput: return nil
                }
            }
        }
        // Between reads a Ctrl-C must not end the REPL: a command that can be stopped (sync, wait) installs its own
        // handler; anything else finishes.
        var keep = sigaction()
        keep.__sigaction_handler.sa_handler = { _ in }
        sigemptyset(&keep.sa_mask)
        keep.sa_flags = Int32(SA_RESTART)
        sigaction(SIGINT, &keep, nil)
        context.console.out("recipes \(RecipesCommand.version) — type `help` for commands, Ctrl-D to leave\n")
        reading: while true {
            switch editor.read(prompt: "recipes> ") {
            case .line(let line):
                if await session.run(line: line) == .quit { break reading }
            case .unreadable:
                context.console.err("error: " + editor.locale.refusal + "\n")
            case .interrupted:
                context.console.out("\n")
            case .endOfInput:
                context.console.out("\n")
                if await session.mayLeave() { break reading }
            }
        }
        editor.saveHistory()
    }
}
