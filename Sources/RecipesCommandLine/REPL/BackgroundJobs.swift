import Foundation
import Locking
import RecipeModels
import RecipeStore
import RecipeSync

/// The background syncs of one REPL session (`sync &`): at most one runs at a time, since two runs in one process
/// would share its leases. Each shows its events as plain lines prefixed `[n]`, at most one progress line a second
/// per recipe, and a last line when it ends; `jobs` lists them, `wait` waits for the running one, `cancel %n` stops
/// it, and `cancel <id>` reaches one of its recipes through the database as from any other process.
final class BackgroundJobs: Sendable {
    /// One background sync.
    final class Job: Sendable {
        let number: Int
        /// `sync` or `sync 3 4`.
        let title: String
        let run: SyncRun
        let task: Task<Result<SyncSummary, CommandLineError>, Never>
        /// Recipes that ended so far (done, failed, cancelled, offline or skipped).
        let ended: Locked<Int>
        /// Whether the run has ended and its last line is out.
        let finished: Locked<Bool>
        /// Whether the end was shown by `jobs` or `wait` (then `jobs` forgets it).
        let reported = Locked(false)
        /// Whether `wait` has taken its result (a job's end is reported to `wait` once, whatever `jobs` showed).
        let waited = Locked(false)
        /// Lets the run start (see `launch`).
        private let go: AsyncStream<Void>.Continuation

        init(
            number: Int, title: String, run: SyncRun, task: Task<Result<SyncSummary, CommandLineError>, Never>,
            ended: Locked<Int>, finished: Locked<Bool>, go: AsyncStream<Void>.Continuation
        ) {
            self.go = go
            self.number = number
            self.title = title
            self.run = run
            self.task = task
            self.ended = ended
            self.finished = finished
        }

        /// Starts the run: after the session has announced the job, so that none of its lines comes before that.
        func launch() {
            go.yield()
            go.finish()
        }
    }

    let lines: JobLines
    private let jobs = Locked<(all: [Job], next: Int)>(([], 1))

    init(lines: JobLines) { self.lines = lines }

    /// The job still running, if any.
    var running: Job? { jobs.withLock { $0.all.last }.flatMap { $0.finished.withLock { $0 } ? nil : $0 } }

    /// Prepares `invocation` on `store` as a background job, which runs once `launch`ed; throws when a sync is already
    /// running.
    func start(
        _ invocation: SyncInvocation, store: RecipeStore, configuration: ClientConfiguration
    ) throws -> Job {
        if let job = running {
            throw CommandLineError("sync %\(job.number) is still running; `wait` for it or `cancel %\(job.number)` first")
        }
        let number = jobs.withLock { state in
            defer { state.next += 1 }
            return state.next
        }
        let prefix = "[\(number)] "
        let server = try configuration.serverKind()
        let output = PlainSyncOutput(console: JobConsole(lines: lines, prefix: prefix), dialect: .repl, server: server)
        let ended = Locked(0)
        let run = try invocation.prepareRun(store: store, configuration: configuration) { event in
            output.emit(event)
            switch event.kind {
            case .done, .failed, .cancelled, .offline, .skipped, .pulled, .merged, .conflict, .removed:
                ended.withLock { $0 += 1 }
            case .start, .progress, .retry, .downloaded: break
            }
        }
        let title = "sync" + (invocation.ids.map { " " + $0.map(\.description).joined(separator: " ") } ?? "")
        let lines = self.lines
        let finished = Locked(false)
        let (started, go) = AsyncStream<Void>.makeStream()
        let task = Task<Result<SyncSummary, CommandLineError>, Never> {
            for await _ in started { break }
            let result: Result<SyncSummary, CommandLineError>
            do {
                result = .success(try await run.run())
            } catch {
                result = .failure(CommandLineError((error as? any LocalizedError)?.errorDescription ?? "\(error)"))
            }
            if let offline = output.offlineLine { lines.post(prefix + offline) }
            lines.post(prefix + Self.describe(result, server: server))
            finished.withLock { $0 = true }
            return result
        }
        let job = Job(number: number, title: title, run: run, task: task, ended: ended, finished: finished, go: go)
        jobs.withLock { $0.all.append(job) }
        return job
    }

    /// One line per job not yet reported: `[1] running  sync  (2 recipes ended)` or `[1] done  sync: 3 done`.
    func list() -> String {
        let all = jobs.withLock { $0.all }.filter { !$0.reported.withLock { $0 } }
        guard !all.isEmpty else { return "no background jobs; `sync &` starts one\n" }
        var text = ""
        for job in all {
            if job.finished.withLock({ $0 }) {
                text += "[\(job.number)] finished  \(job.title)\n"
                job.reported.withLock { $0 = true }
            } else {
                let ended = job.ended.withLock { $0 }
                text += "[\(job.number)] running   \(job.title)  (\(ended) recipe\(ended == 1 ? "" : "s") ended so far)\n"
            }
        }
        return text
    }

    /// Waits for the last job, if `wait` has not taken its result yet, and returns how it ended (nil: none to wait for).
    func wait() async -> Result<SyncSummary, CommandLineError>? {
        guard let job = jobs.withLock({ $0.all.last }), !job.waited.withLock({ $0 }) else { return nil }
        let result = await job.task.value
        job.waited.withLock { $0 = true }
        job.reported.withLock { $0 = true }
        return result
    }

    /// Stops job `number` as Ctrl-C stops a foreground sync; false when there is no such running job.
    func stop(_ number: Int) -> Bool {
        guard let job = jobs.withLock({ $0.all.first { $0.number == number } }), !job.finished.withLock({ $0 }) else {
            return false
        }
        job.run.interrupt()
        return true
    }

    /// `finished: sync: 3 done` or `failed: …`.
    static func describe(_ result: Result<SyncSummary, CommandLineError>, server: ServerKind = .http) -> String {
        switch result {
        case .success(let summary): return "finished: " + SyncEventText.summary(summary, dialect: .repl, server: server)
        case .failure(let error): return "failed: " + error.message
        }
    }
}
