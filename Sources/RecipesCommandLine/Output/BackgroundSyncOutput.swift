import Foundation
import Locking
import RecipeModels

/// `recipes sync --background`, what cron runs: nothing on stdout, one timestamped line per event (progress left
/// out) appended to `logs/sync.log`, and on stderr — which cron mails — only what needs a person: `failed` events,
/// a new conflict (a `conflict` event comes only from the run that made it, so it is mailed once) and a refusal of
/// the credentials. Offline, backoff and busy recipes are routine and only logged. The reminders of recipes that wait
/// for a person (failed or cancelled in an earlier run) are logged, and the failed ones mailed, at most once a day
/// (`ReminderSchedule`); a run whose only news they are leaves no line in between.
///
/// Lines read `2026-11-20T10:00:00.123Z [4242] #3 Tomato soup: done (version 4 on the server)`, the process id
/// telling concurrent runs apart. A run that had nothing to do leaves no line, so a cron job every few minutes
/// does not fill the log with `nothing to do`.
final class BackgroundSyncOutput: SyncOutput {
    private let log: SyncLog
    private let console: any Console
    /// The kind of server the run syncs with, whose versions the lines show in its words.
    private let server: ServerKind
    private let clock: @Sendable () -> Date
    private let processID: Int32
    private let reminders: ReminderSchedule
    /// Whether any event was logged, the recipes left for the network (one line at the end) and the reminders held
    /// back until the end; held while writing to stderr, so that lines stay whole.
    private let logged = Locked((any: false, offline: OfflineRecipes(), reminders: [SyncEvent]()))

    /// Creates the output; `clock` (the time of the summary line) is replaceable for tests.
    init(
        log: SyncLog, console: any Console, server: ServerKind = .http, clock: @escaping @Sendable () -> Date = { Date() },
        processID: Int32 = ProcessInfo.processInfo.processIdentifier
    ) {
        self.log = log
        self.console = console
        self.server = server
        self.clock = clock
        self.processID = processID
        self.reminders = ReminderSchedule(logs: log.directory)
    }

    /// Whether `event` reminds of a recipe that waits for a person (see `RunReports.reportStopped`).
    static func isReminder(_ event: SyncEvent) -> Bool {
        event.kind == .skipped && (event.hint == .retry || event.hint == .resume)
    }

    func emit(_ event: SyncEvent) {
        guard event.kind != .progress else { return }
        let held = logged.withLock { logged in
            if Self.isReminder(event) {
                logged.reminders.append(event)
                return true
            }
            return logged.offline.take(event)
        }
        if held { return }
        let line = SyncEventText.line(event, server: server)
        log.append(stamp(event.time) + line)
        logged.withLock { logged in
            logged.any = true
            if event.kind == .failed || event.kind == .conflict { console.err("recipes: " + line + "\n") }
        }
    }

    func finish(_ summary: SyncSummary) {
        let (anything, offline, held) = logged.withLock { ($0.any, $0.offline.line, $0.reminders) }
        var summary = summary
        if !held.isEmpty {
            let now = clock()
            if ReminderSchedule.isDue(last: reminders.last(), now: now) {
                for event in held {
                    let line = SyncEventText.line(event, server: server)
                    log.append(stamp(event.time) + line)
                    if event.hint == .retry { console.err("recipes: " + line + "\n") }
                }
                reminders.record(now)
            } else {
                summary.failedEarlier = 0  // said today already: this run's summary does not repeat it
                summary.cancelledEarlier = 0
            }
        }
        if let offline { log.append(stamp(clock()) + offline) }
        if anything || offline != nil || summary != SyncSummary() {
            log.append(stamp(clock()) + SyncEventText.summary(summary, server: server))
        }
        if summary.credentialsRefused { console.err(CredentialsAdvice.backgroundLine(server)) }
        // A set-up mistake is no weather: cron mails it (every run, until server.url is fixed).
        if let problem = summary.setupProblem { console.err("recipes: sync: \(TerminalText.clean(problem))\n") }
    }

    private func stamp(_ time: Date) -> String { "\(EventTimestamp.string(time)) [\(processID)] " }
}
