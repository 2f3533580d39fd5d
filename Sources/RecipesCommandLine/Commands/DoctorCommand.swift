import ArgumentParser
import Foundation
import RecipeStore

/// `recipes doctor`: checks the database and, when it is damaged, salvages every readable recipe.
struct DoctorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check the database; when it is damaged, save every readable recipe into a new one.",
        discussion: """
            Runs SQLite's integrity_check on <home>/recipes.sqlite3 without writing to it. When it is damaged, every \
            recipe that can still be read (fields, ingredients, steps, image, sync state) is copied into a new \
            database, recipes.sqlite3.salvaged-<time>, which then takes its place; the damaged file is kept as \
            recipes.sqlite3.damaged-<time> (with its -wal and -shm files). A recipe saved without some of its parts \
            is marked failed until you check it and run `recipes sync <id>`. When another process has the database \
            open, the new one is left beside it: run `recipes doctor` again once that process has ended.

            Exit status: 0 no damage found, 1 damaged (the report says what was saved and what was not).
            """)

    @ParentCommand var root: RecipesCommand
    @OptionGroup var global: GlobalOptions

    func run() throws {
        let context = CommandContext(homeOption: Self.homeOption(global, root))
        var damaged = false
        try context.reportingFailures {
            let report = try DatabaseDoctor.examine(home: context.home)
            context.console.out(Self.describe(report, path: context.home.databaseURL.path))
            if report.verdict == .damaged { damaged = true }
        }
        if damaged { throw ExitCode.failure }
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
