import ArgumentParser
import Foundation
import RecipeModels

/// `recipes sync`: uploads every changed recipe (image first, then its JSON) or sends its deletion.
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Pull the server's changes, then upload every changed recipe: its image first, then its JSON.",
        discussion: """
            Pulls first: every change on the server since the last pull is added here, replaces an unchanged recipe, \
            or is merged field by field with local edits; changes a person must choose between become conflicts \
            (`recipes conflicts`, `recipes resolve`). Then pushes.

            Without ids: every recipe that is due (not cancelled, not failed, not waiting for a later retry).

            With ids: exactly those, now; this also resumes cancelled and failed recipes and skips their backoff.

            Output: progress bars on a terminal, one line per event otherwise, NDJSON with --json; with --background \
            (what cron runs) nothing but problems, events appended to <home>/logs/sync.log.

            Ctrl-C stops the running uploads cleanly; the recipes stay due for the next run.

            Exit status: 0 all requested work is done; 75 some is still waiting (offline, backoff, busy in \
            another process, cancelled or edited during the run); 1 some recipe failed or is in conflict; 77 the \
            server refused the credentials; 64 usage error.

            With --watch: keeps running and syncs whenever there is something to do — an edit committed by any \
            recipes process, the network coming back, a change on the server, a retry coming due — and sleeps \
            otherwise. One watcher per home. Output as with --background unless --plain or --json; SIGHUP re-reads \
            the configuration; SIGTERM or Ctrl-C stop it cleanly (exit 0).
            """)

    @ParentCommand var root: RecipesCommand
    @OptionGroup var global: GlobalOptions
    @Flag(name: .long, help: "Run as cron does: no output unless something is wrong; events go to logs/sync.log.")
    var background = false
    @Flag(name: .long, help: "Print newline-delimited JSON events on stdout.")
    var json = false
    @Option(name: .long, help: ArgumentHelp(
        "Transfer exactly N recipes at once (default: sync.jobs, 4, and more on a long round trip, up to "
            + "sync.max_connections, 16).", valueName: "N"))
    var jobs: Int?
    @Option(name: .customLong("max-wait"),
            help: ArgumentHelp("Sleep out retry waits up to S seconds; longer ones are left for a later run.", valueName: "S"))
    var maxWait: Double = 30
    @Option(name: .customLong("wait-for-network"),
            help: ArgumentHelp("Wait up to S seconds for an unreachable server to come back.", valueName: "S"))
    var waitForNetwork: Double = 0
    @Flag(name: .long, help: "Keep running: sync whenever there is something to do, sleep otherwise.")
    var watch = false
    @Flag(name: .long, help: "With --watch: one plain line per event on stdout instead of the log.")
    var plain = false
    @Flag(name: .long, help: "On a terminal, a line for every recipe pulled and image downloaded (else counted in the progress line).")
    var verbose = false
    @Flag(name: .customLong("pull-only"), help: "Only pull the server's changes.") var pullOnly = false
    @Flag(name: .customLong("push-only"), help: "Only upload this device's changes.") var pushOnly = false
    @Argument(
        help: ArgumentHelp(RecipeReference.argumentsHelp + " Only uploaded."), transform: RecipeReference.argument)
    var ids: [RecipeReference] = []

    func validate() throws {
        if let jobs, !(1...64).contains(jobs) { throw ValidationError("--jobs must be 1 to 64, not \(jobs)") }
        if pullOnly && pushOnly { throw ValidationError("--pull-only and --push-only exclude each other; give one, or neither for both") }
        if pullOnly && !ids.isEmpty { throw ValidationError("--pull-only pulls every change; it takes no ids") }
        guard maxWait.isFinite, maxWait >= 0, maxWait <= 86_400 else {
            throw ValidationError("--max-wait takes seconds from 0 to 86400")
        }
        guard waitForNetwork.isFinite, waitForNetwork >= 0, waitForNetwork <= 86_400 else {
            throw ValidationError("--wait-for-network takes seconds from 0 to 86400")
        }
        if plain && !watch {
            throw ValidationError("--plain goes with --watch; without it, output that is not a terminal is plain already")
        }
        if plain && json { throw ValidationError("--plain and --json exclude each other; give one, or neither for the log") }
        guard watch else { return }
        if !ids.isEmpty { throw ValidationError("--watch syncs every recipe that needs it; it takes no ids") }
        if pullOnly || pushOnly { throw ValidationError("--watch syncs both ways; it takes neither --pull-only nor --push-only") }
        if waitForNetwork != 0 {
            throw ValidationError("--watch waits for the network by itself; leave --wait-for-network out")
        }
    }

    func run() async throws {
        let context = CommandContext(homeOption: Self.homeOption(global, root))
        if watch {
            let watching = WatchInvocation(
                jobs: jobs, maxWait: maxWait, mode: json ? .json : plain ? .plain : .background)
            let status = await watching.run(context: context)
            if status != 0 { throw ExitCode(status) }
            return
        }
        let status = await Self.run(invocation(environment: context.environment), context: context)
        if status != 0 { throw ExitCode(status) }
    }

    /// The sync these options ask for, with stdout's kind judged in `environment`.
    func invocation(environment: [String: String]) -> SyncInvocation {
        SyncInvocation(
            ids: ids.isEmpty ? nil : ids, jobs: jobs, maxWait: maxWait, waitForNetwork: waitForNetwork,
            direction: pullOnly ? .pullOnly : pushOnly ? .pushOnly : .both,
            mode: SyncOutputMode.select(background: background, json: json, environment: environment), verbose: verbose)
    }

    /// Loads the configuration and runs `invocation` (which opens the store when there is work); a failure becomes
    /// one `recipes: …` line on stderr. Answers the exit status (what `recipes sync` and its cron fast path exit with).
    static func run(_ invocation: SyncInvocation, context: CommandContext) async -> Int32 {
        var summary = SyncSummary()
        do {
            try await context.reportingFailures {
                summary = try await invocation.run(context: context, configuration: context.configuration())
            }
        } catch {
            return (error as? ExitCode)?.rawValue ?? ExitCode.failure.rawValue
        }
        return summary.exitStatus
    }
}
