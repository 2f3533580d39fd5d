import ArgumentParser
import Foundation
import RecipeModels
import RecipeStore
import RecipeSync

/// `recipes cancel <id>`: stops a recipe's upload wherever it is — queued, waiting for a retry, or in flight in
/// this or another process.
struct CancelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel",
        abstract: "Cancel a recipe's upload, wherever it is running or waiting.",
        discussion: """
            The recipe becomes `cancelled`: its edits and files stay, and background sync leaves it alone until it \
            is edited again or synced by id (`recipes sync <id>`). A process uploading it aborts the transfer within \
            a fraction of a second; this command waits up to 2 s to say that it stopped.

            Exit status: 0 cancelled or nothing to cancel; 1 unknown id.
            """)

    @ParentCommand var root: RecipesCommand
    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp(RecipeReference.argumentHelp), transform: RecipeReference.argument)
    var id: RecipeReference

    func run() async throws {
        let context = CommandContext(homeOption: Self.homeOption(global, root))
        try await context.reportingFailures {
            let store = try context.openStore()
            context.console.out(try await Self.cancel(store.recipeID(id), store: store) + "\n")
        }
    }

    /// Cancels recipe `id`'s upload and says what happened, in one line.
    static func cancel(_ id: Int64, store: RecipeStore, dialect: CommandDialect = .shell) async throws -> String {
        let result = try store.requestCancel(id: id, now: Date(), isOwnerAlive: LeaseOwner.isAlive)
        switch result {
        case .cancelledQueued:
            return "cancelled recipe \(id): it was waiting to be uploaded; \(dialect.sync(id)) resumes it"
        case .cancelledInFlight(let owner, let pid):
            let process = pid == getpid() ? "this process" : pid.map { "pid \($0)" } ?? "another process"
            let deadline = ContinuousClock.now + .seconds(2)
            while ContinuousClock.now < deadline {
                if try !store.isLeased(id: id, by: owner) {
                    return "cancelled recipe \(id): its upload in \(process) stopped; \(dialect.sync(id)) resumes it"
                }
                try await Task.sleep(for: .milliseconds(5))
            }
            return "cancelled recipe \(id): asked \(process) to stop its upload; \(dialect.sync(id)) resumes it"
        case .nothingToCancel(let state):
            return "nothing to cancel: recipe \(id) is \(state.rawValue)"
        }
    }
}
