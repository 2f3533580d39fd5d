import Foundation
import RecipeModels
import RecipeStore

/// Runs REPL lines against a store: splits, parses, executes, and reports one line on failure.
///
/// A failed command changes nothing (each edit is one transaction) and prints one `error:` line on stderr, its
/// control characters (of a typed path, say) shown as spaces.
///
/// A session given a read-only store (what `recipes edit` opens) reads through it and opens the store read-write at
/// its first command that changes something: a session that only reads never writes to the database.
public final class ReplSession {
    /// What running one line came to.
    public enum LineResult: Equatable, Sendable {
        /// The command succeeded.
        case succeeded
        /// The command failed and changed nothing.
        case failed
        /// A blank or comment line.
        case skipped
        /// `quit` or `exit`.
        case quit
    }

    /// The store: read-only until the first change (see `writableStore`).
    private(set) var store: RecipeStore
    let configuration: ClientConfiguration
    let console: any Console
    let now: @Sendable () -> Date
    let environment: [String: String]
    /// Whether a person is at a terminal (the REPL's `sync` then shows progress bars).
    let interactive: Bool
    /// Whether a command that changed something says so in one line (`added ingredient 3 to Lasagne`, `deleted 8
    /// "Lasagne" …`): in the REPL at a terminal, and from a shell on a terminal or with `--verbose`; not in a
    /// script's output (`delete` and `undo` there say it when given `--verbose`).
    var receipts = false
    /// The background syncs of this session and where their lines go.
    let jobs: BackgroundJobs
    /// Asks a question (edit again? leave?) and returns the answer line, nil at end of input: on a terminal through
    /// the line editor, else the next line of standard input.
    var ask: (String) async -> String?
    /// Set when a background sync that a script waited for at its end failed (the REPL then exits 1).
    var leftFailed = false
    /// The words of the commands its output advises: the REPL's own, or a shell's when a command of it runs from
    /// one (`recipes title 3 …`).
    var dialect: CommandDialect = .repl

    /// Creates a session on `store`.
    public init(
        store: RecipeStore, configuration: ClientConfiguration, console: any Console,
        environment: [String: String] = ProcessInfo.processInfo.environment, interactive: Bool = false,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.interactive = interactive
        self.store = store
        self.configuration = configuration
        self.console = console
        self.environment = environment
        self.now = now
        self.jobs = BackgroundJobs(lines: JobLines(console: console))
        self.ask = { question in
            console.err(question)
            return readLine(strippingNewline: true)
        }
    }

    /// Runs one line; `location` (e.g. "line 3") prefixes the error message when given.
    public func run(line: String, location: String? = nil) async -> LineResult {
        do {
            let words: [String]
            do {
                words = try LineSplitter.split(line)
            } catch {
                throw CommandLineError(error.message)
            }
            if words.isEmpty { return .skipped }
            let command = try ReplCommand.parse(words)
            return try await execute(command)
        } catch {
            let message = TerminalText.clean((error as? any LocalizedError)?.errorDescription ?? "\(error)")
            console.err("error: " + (location.map { "\($0): " } ?? "") + message + "\n")
            return .failed
        }
    }

    /// The store, opened read-write first if it was read-only (for the commands that change something).
    func writableStore() throws -> RecipeStore {
        if store.access == .readWrite { return store }
        store = try RecipeStore(home: store.home, access: .readWrite)
        return store
    }

    func execute(_ command: ReplCommand) async throws -> LineResult {
        var formatter = RecipeFormatter(store: store, now: now())
        formatter.dialect = dialect
        formatter.server = (try? configuration.serverKind()) ?? .http  // a kind that is none: `status` says so
        formatter.hasServer = configuration.serverURL != nil
        switch command {
        case .new(let title):
            let recipe = try writableStore().create(title: title)
            console.out("created \(recipe.id)\n")
        case .list:
            console.out(formatter.list(try store.recipes(), revisions: !interactive))
        case .show(let reference, let scale, let details):
            let recipe = try store.recipe(id: store.recipeID(reference))
            let factor = try scale.map { try ScaleOptions.factor($0, of: recipe) }
            console.out(details ? formatter.details(recipe, scale: factor) : formatter.show(recipe, scale: factor))
        case .edit(let reference, let change):
            let id = try store.recipeID(reference)
            let outcome = try writableStore().edit(change, of: id)
            if !outcome.changed {
                console.out(Self.unchanged(id))
            } else if receipts {
                console.out(EditReceipt.line(for: change, after: outcome.recipe))
            }
        case .setImage(let reference, let path):
            let id = try store.recipeID(reference)
            if try !attachImage(at: path, to: id) {
                console.out(Self.unchanged(id))
            } else if receipts {
                console.out(EditReceipt.imageAttached(to: try store.recipe(id: id)))
            }
        case .status(let references):
            let notes = StatusCommand.folderNotes(store.home).map { "note: \($0)\n" }.joined()
            let ids = try store.recipeIDs(references)
            console.out(formatter.status(try store.recipes(ids: ids.isEmpty ? nil : ids)) + StatusCommand.toCome(store, all: ids.isEmpty)
                + StatusCommand.destination(configuration) + "\n" + notes)
        case .sync(let ids):
            if let job = jobs.running {
                throw CommandLineError("sync %\(job.number) is running in the background; `wait` for it first")
            }
            let mode = SyncOutputMode.select(
                background: false, json: false, environment: environment, stdoutIsTerminal: interactive)
            let invocation = SyncInvocation(
                ids: ids.isEmpty ? nil : ids, mode: mode, exitOnSecondInterrupt: false, dialect: dialect)
            let store = try writableStore()
            let context = CommandContext(home: store.home, environment: environment, console: console)
            let summary = try await invocation.run(context: context, store: store, configuration: configuration)
            if summary.credentialsRefused {
                throw CommandLineError("sync: " + CredentialsAdvice.refused + "; " + CredentialsAdvice.hint(try configuration.serverKind()))
            }
            if summary.failed + summary.failedEarlier > 0 {
                throw CommandLineError("sync: \(summary.failed + summary.failedEarlier) recipe(s) failed; `status` says why")
            }
        case .cancel(let reference):
            let id = try store.recipeID(reference)
            console.out(try await CancelCommand.cancel(id, store: writableStore(), dialect: dialect) + "\n")
        case .conflicts:
            console.out(ConflictText.listing(try store.recipes(), dialect: dialect))
        case .resolve(let reference, let side, let fields):
            let resolved = try writableStore().resolve(id: store.recipeID(reference), side: side, only: fields)
            console.out(ConflictText.resolved(resolved, dialect: dialect) + "\n")
        case .backgroundSync, .cancelJob, .jobs, .wait:
            return try await executeJobCommand(command)
        case .delete, .history, .undo:
            return try executeHistoryCommand(command)
        case .editInEditor, .applyCard, .search, .importFiles, .export, .cook:
            return try await executeEditingCommand(command)
        case .help(let topic):
            console.out(Self.help(topic: topic, columns: interactive ? TerminalSize.current().columns : nil))
        case .quit:
            return await mayLeave() ? .quit : .succeeded
        }
        return .succeeded
    }

    /// What an edit that changed nothing says: the recipe already was so, and no revision was spent on it.
    static func unchanged(_ id: Int64) -> String { "recipe \(id) unchanged: it already reads so\n" }

    /// Checks and copies the file at `path` into the media folder, then attaches it in one transaction; whether that
    /// changed the recipe (not when it already shows that image).
    func attachImage(at path: String, to id: Int64) throws -> Bool {
        let store = try writableStore()
        _ = try store.recipe(id: id)  // an unknown id fails before any copying
        let staged = try store.media.stage(from: expandTilde(path), maxBytes: configuration.imageMaxBytes)
        do {
            return try store.edit(.setImage(staged), of: id).changed
        } catch {
            store.media.discard(staged)
            throw error
        }
    }

    func expandTilde(_ path: String) -> String {
        guard path == "~" || path.hasPrefix("~/"), let home = environment["HOME"], !home.isEmpty else { return path }
        return home + path.dropFirst()
    }

    /// The text of `help`, or of `help <command>`.
    /// With `columns` (a terminal's width), every line fits: a summary wraps under itself, or, where the usages leave
    /// it less than 30 columns, goes under its usage, indented.
    public static func help(topic: String?, columns: Int? = nil) -> String {
        let fit = columns.map { max(20, $0 - 1) }  // the last column left free: writing into it makes some terminals wrap
        if let topic, let spec = ReplCommandSpec.named(topic) {
            let summary = fit.map { TextWrap.lines(spec.summary, width: $0 - 2) } ?? [spec.summary]
            return "usage: \(spec.usage)\n" + summary.map { "  " + $0 + "\n" }.joined()
        }
        let width = ReplCommandSpec.all.flatMap(\.usages).map(\.count).max() ?? 0
        let beside = fit.map { $0 - width - 4 >= 30 } ?? true
        var text = "Commands (ids are the numbers `list` shows; quote text with spaces or use it as the last words):\n"
        if let fit { text = TextWrap.lines(String(text.dropLast()), width: fit).map { $0 + "\n" }.joined() }
        for spec in ReplCommandSpec.all where spec.name != "exit" {
            let lines = spec.usages.map { $0.trimmingCharacters(in: .whitespaces) }
            guard let fit else {
                for (index, line) in lines.enumerated() {
                    text += "  " + line.padding(toLength: width, withPad: " ", startingAt: 0)
                        + (index == 0 ? "  " + spec.summary : "") + "\n"
                }
                continue
            }
            if beside {
                let summary = TextWrap.lines(spec.summary, width: fit - width - 4)
                for index in 0..<max(lines.count, summary.count) {
                    let usage = index < lines.count ? lines[index] : ""
                    let words = index < summary.count ? "  " + summary[index] : ""
                    text += "  " + usage.padding(toLength: width, withPad: " ", startingAt: 0) + words + "\n"
                }
            } else {
                for line in lines { text += "  " + line + "\n" }
                for line in TextWrap.lines(spec.summary, width: fit - 6) { text += "      " + line + "\n" }
            }
        }
        return text.split(separator: "\n").map { $0.replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression) }
            .joined(separator: "\n") + "\n"
    }
}
