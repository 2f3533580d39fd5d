import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `recipes edit`: the REPL, interactive on a terminal, scripted on a pipe.
struct EditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit",
        abstract: "Edit recipes in an interactive shell (type `help` there), or run commands piped on stdin.",
        discussion: """
            On a terminal: a prompt with line editing, history in <home>/history and tab completion of command names.
            On a pipe: no prompt, one command per line until end of input; a failed command prints one line on stderr
            and the rest still run. Exit status 1 if any command failed (with --bail: stop at the first), else 0.
            Words split like a shell: '…' and "…" group words, backslash escapes; lines starting with # are ignored.
            """)

    @ParentCommand var root: RecipesCommand
    @OptionGroup var global: GlobalOptions
    @Flag(name: .long, help: "On a pipe, stop at the first failed command.") var bail = false

    func run() async throws {
        let context = CommandContext(homeOption: Self.homeOption(global, root))
        var session: ReplSession?
        try context.reportingFailures {
            let configuration = try context.configuration()
            session = ReplSession(
                store: try context.openStore(.readOnly), configuration: configuration, console: context.console,
                environment: context.environment, interactive: isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1)
        }
        guard let session else { throw ExitCode.failure }
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
                if bail { throw ExitCode.failure }
            case .quit:
                if failed { throw ExitCode.failure }
                return
            case .succeeded, .skipped:
                break
            }
        }
        if failed { throw ExitCode.failure }
    }

    func runInteractive(_ session: ReplSession, context: CommandContext) async {
        let editor = LineEditor(
            historyPath: context.home.historyURL.path, commandNames: ReplCommandSpec.all.map(\.name))
        context.console.out("recipes \(RecipesCommand.version) — type `help` for commands, Ctrl-D to leave\n")
        reading: while true {
            switch editor.read(prompt: "recipes> ") {
            case .line(let line):
                if await session.run(line: line) == .quit { break reading }
            case .interrupted:
                context.console.out("\n")
            case .endOfInput:
                context.console.out("\n")
                break reading
            }
        }
        editor.saveHistory()
    }
}
