import Foundation
import Locking
import RecipeModels

extension ReplSession {
    /// `sync &`, `jobs`, `wait` and `cancel %n`.
    func executeJobCommand(_ command: ReplCommand) async throws -> LineResult {
        switch command {
        case .backgroundSync(let ids):
            let invocation = SyncInvocation(ids: ids.isEmpty ? nil : ids, mode: .plain)
            let job = try jobs.start(invocation, store: writableStore(), configuration: configuration)
            console.out("[\(job.number)] \(job.title) runs in the background; `jobs` shows it, `wait` waits for it\n")
            job.launch()
        case .jobs:
            console.out(jobs.list())
        case .wait:
            guard let job = jobs.running else {
                if let result = await jobs.wait() { return Self.lineResult(result) }
                console.out("no background job running\n")
                return .succeeded
            }
            let stop = Locked(false)
            try await InterruptSignal.whileRunning(exitOnSecond: false, onInterrupt: { stop.withLock { $0 = true } }) {
                while !job.finished.withLock({ $0 }), !stop.withLock({ $0 }) {
                    try await Task.sleep(for: .milliseconds(20))
                }
            }
            guard job.finished.withLock({ $0 }), let result = await jobs.wait() else {
                console.out("stopped waiting; sync %\(job.number) still runs (`cancel %\(job.number)` stops it)\n")
                return .succeeded
            }
            return Self.lineResult(result)
        case .cancelJob(let number):
            guard jobs.stop(number) else { throw CommandLineError("no background job %\(number) is running; `jobs` lists them") }
            console.out("stopping sync %\(number); its recipes stay as they were for a later sync\n")
        default:
            break
        }
        return .succeeded
    }

    /// A background sync that ended counts as failed, as a foreground one does, when a recipe failed or the server
    /// refused the credentials.
    static func lineResult(_ result: Result<SyncSummary, CommandLineError>) -> LineResult {
        switch result {
        case .success(let summary):
            return summary.failed + summary.failedEarlier > 0 || summary.credentialsRefused ? .failed : .succeeded
        case .failure: return .failed
        }
    }

    /// Whether the REPL may end now: with a background sync running, a person is asked whether to stop it (no
    /// keeps the REPL), a script waits for it to end (a failed end sets `leftFailed`, which makes the exit status 1).
    func mayLeave() async -> Bool {
        guard let job = jobs.running else { return true }
        if interactive {
            let answer = await ask("sync %\(job.number) is still running. Stop it and leave? [y/N] ")
            guard let answer, answer.trimmingCharacters(in: .whitespaces).lowercased().hasPrefix("y") else {
                if answer == nil { console.out("\n") }
                return false
            }
            job.run.interrupt()
            _ = await jobs.wait()
            return true
        }
        console.err("waiting for sync %\(job.number) to end before leaving\n")
        if let result = await jobs.wait(), Self.lineResult(result) == .failed { leftFailed = true }
        return true
    }
}
