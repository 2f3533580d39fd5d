import ArgumentParser
import Foundation
import RecipeStore
import RecipeSync

/// `recipes doctor`: checks the database and, when it is damaged, salvages every readable recipe; then, when a server
/// is set, whether it answers and takes this device's token.
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check the database (saving every readable recipe when it is damaged) and the server's answer to this device's token.",
        discussion: """
            Runs SQLite's integrity_check on <home>/recipes.sqlite3 without writing to it. When it is damaged, every \
            recipe that can still be read (fields, ingredients, steps, image, sync state) is copied into a new \
            database, recipes.sqlite3.salvaged-<time>, which then takes its place; the damaged file is kept as \
            recipes.sqlite3.damaged-<time> (with its -wal and -shm files). A recipe saved without some of its parts \
            is marked failed until you check it and run `recipes sync <id>`. When another process has the database \
            open, the new one is left beside it: run `recipes doctor` again once that process has ended.

            When server.url is set, then asks the server one question with this device's token (a recipes server's \
            changes feed; a Mealie's group) and says whether it answered, is the kind of server server.kind names, and \
            took the token — and, when the token was refused (rotated or removed on the server), what to do. The token \
            is never printed.

            Exit status: 0 nothing wrong found; 1 the database is damaged (the report says what was saved and what \
            was not), or server.url names something that is not the configured kind of server; 75 the server cannot \
            be reached now; 77 the server refused this device's token.
            """)

    @ParentCommand var root: RecipesCommand
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let context = CommandContext(homeOption: Self.homeOption(global, root))
        var damaged = false
        try context.reportingFailures {
            let report = try DatabaseDoctor.examine(home: context.home)
            context.console.out(Self.describe(report, path: context.home.databaseURL.path))
            if report.verdict == .damaged { damaged = true }
        }
        var status: Int32 = damaged ? 1 : 0
        try await context.reportingFailures {
            let configuration = try context.configuration()
            let settings = try SyncInvocation.settings(configuration)
            guard let url = configuration.serverURL, let check = await ServerCheck.ask(settings) else { return }
            let (line, exit) = Self.describe(
                check, url: url, kind: try configuration.serverKind(), tokenSet: configuration.token != nil)
            context.console.out(line + "\n")
            if status == 0 { status = exit }
        }
        if status != 0 { throw ExitCode(status) }
    }

    /// The server's line of the report and the exit status it asks for.
    static func describe(_ check: ServerCheck, url: String, kind: ServerKind, tokenSet: Bool) -> (String, Int32) {
        let shown = "server " + TerminalText.clean(url)
        switch check {
        case .accepted(let who):
            let token = tokenSet ? "took this device's token" : "needs no token"
            return ("\(shown): answers, and \(token) (\(TerminalText.clean(who)))", 0)
        case .unreachable(let words):
            return ("\(shown): cannot be reached now: \(TerminalText.clean(words)); a later sync tries again", 75)
        case .setupMistake(let words):
            return ("\(shown): \(TerminalText.clean(words))", 1)
        case .credentialsRefused(let httpStatus, tokenSet: true):
            return ("\(shown): \(CredentialsAdvice.refused) (HTTP \(httpStatus)); \(CredentialsAdvice.hint(kind))", 77)
        case .credentialsRefused(_, tokenSet: false):
            return ("\(shown): \(CredentialsAdvice.missing(kind))", 77)
        case .unexpected(let words):
            return ("\(shown): answered, but not as expected: \(TerminalText.clean(words))", 1)
        }
    }

    /// The report as the lines `recipes doctor` prints.
    static func describe(_ report: DoctorReport, path: String) -> String {
        switch report.verdict {
        case .noDatabase:
            return "\(path) does not exist yet: nothing to check\n"
        case .healthy(let recipes):
            return "\(path): no damage found (SQLite's integrity_check: ok; \(recipes) recipe\(recipes == 1 ? "" : "s"))\n"
        case .damaged:
            break
        }
        var text = "\(path) is damaged; SQLite's integrity_check says:\n"
        for problem in report.problems.prefix(5) { text += "  " + TerminalText.clean(problem) + "\n" }
        if report.problems.count > 5 { text += "  …\n" }
        guard let salvaged = report.salvagedPath else {
            return text + "Nothing could be saved: restore \(path) from a backup, or move it aside to start again.\n"
        }
        let total = report.saved.count + report.lost.count
        text += "Saved \(report.saved.count) of \(total) recipe\(total == 1 ? "" : "s") into a new database.\n"
        if let kept = report.keptDamagedPath {
            text += "The new database is now \(path); the damaged file was kept as \(kept) (with its -wal and -shm "
                + "files, if any).\n"
        } else {
            text += "The new database is \(salvaged); it did not replace the damaged file because "
                + "\(report.notSwappedBecause ?? "it could not"). Run `recipes doctor` again once that has ended.\n"
        }
        let partial = report.saved.filter { !$0.unreadableParts.isEmpty }
        if !partial.isEmpty {
            text += "Saved without some of their parts, and marked failed until you check them and run `recipes sync <id>`:\n"
            for recipe in partial {
                text += "  \(recipe.id)  \(TerminalText.clean(recipe.title)) (\(recipe.unreadableParts.joined(separator: ", ")) unreadable)\n"
            }
        }
        if !report.lost.isEmpty {
            text += "Could not be read, so not saved:\n"
            for recipe in report.lost {
                text += "  \(recipe.id)  " + (recipe.uuid.map { "uuid \($0), " } ?? "") + "title unreadable\n"
            }
        }
        if !report.unreadableTables.isEmpty {
            text += "Tables not wholly saved: \(report.unreadableTables.joined(separator: ", "))\n"
        }
        return text
    }
}
