import Foundation
import Locking
import RecipeModels
import RecipeStore
import RecipeSync
import SystemFiles
#if canImport(Glibc)
import Glibc
#endif

/// What a watcher syncs with and how; re-read on SIGHUP.
public struct WatchConfiguration: Sendable {
    /// The server and the outside world of every pass (`settings.api` names the server).
    public var settings: SyncSettings
    /// The options of every pass (jobs, `--max-wait`); the direction is always both.
    public var options: SyncOptions
    /// How long the long poll asks the server to hold an empty answer, in seconds.
    public var longPollWait: Int
    /// With a Mealie (which has no long poll), how long after a pass the watcher pulls again, in seconds.
    public var mealiePullInterval: TimeInterval

    /// Every 5 minutes: a Mealie edit reaches a watching device within 5 minutes, for one request when nothing changed
    /// (an idle page of the list and the count).
    public static let defaultMealiePullInterval: TimeInterval = 300

    /// Creates a configuration.
    public init(settings: SyncSettings, options: SyncOptions, longPollWait: Int = LongPoll.defaultWait,
                mealiePullInterval: TimeInterval = defaultMealiePullInterval) {
        self.settings = settings
        self.options = options
        self.longPollWait = longPollWait
        self.mealiePullInterval = mealiePullInterval
    }
}

/// `recipes sync --watch`: one long-running process per home that sleeps until there is something to do.
///
/// It runs `WatchMachine` with the real event sources: the edit FIFO (`EditSignalListener`), the kernel's network
/// notices (`NetworkChanges`), signals (`SignalPipe`), all read by one thread asleep in `poll(2)`
/// (`DescriptorWatch`); the server's long poll (`LongPoll`), the retry timer and the reachability question as tasks
/// asleep until their time; and each sync pass (`WatchPass`). Every one of them turns what happens into an event on
/// one stream; the loop hands each to the machine and performs the actions it answers.
public final class Watcher: Sendable {
    private let store: RecipeStore
    private let initial: WatchConfiguration
    private let reload: @Sendable () throws -> WatchConfiguration
    private let output: any WatchOutput

    /// A watcher of `store`'s home (whose `WatchLock` the caller holds) with `configuration`; SIGHUP calls `reload`.
    public init(
        store: RecipeStore, configuration: WatchConfiguration,
        reload: @escaping @Sendable () throws -> WatchConfiguration, output: any WatchOutput
    ) {
        self.store = store
        self.initial = configuration
        self.reload = reload
        self.output = output
    }

    /// Watches until SIGTERM or SIGINT (a pass under way is interrupted and ends first); throws when an event source
    /// cannot be opened, and, once stopped, when a file of the home it uses (the database, the edit FIFO, the lock)
    /// was deleted or replaced meanwhile.
    public func run() async throws(WatchError) {
        let (events, continuation) = AsyncStream<WatchMachine.Event>.makeStream()
        let edits = try EditSignalListener(home: store.home)
        let network = try NetworkChanges()
        let signals = try SignalPipe([SIGTERM, SIGINT, SIGHUP])
        let files = try HomeFiles(home: store.home, kept: Self.keptFiles(of: store.home, edits: edits))
        let changed = Locked<HomeFiles.Change?>(nil)
        let output = self.output
        let descriptors = try DescriptorWatch([
            .init(descriptor: files.descriptor) {
                files.drain()
                guard let change = files.change() else { return }
                let first = changed.withLock { (noticed: inout HomeFiles.Change?) -> Bool in
                    guard noticed == nil else { return false }
                    noticed = change
                    return true
                }
                guard first else { return }
                output.notice(.homeFileChanged(change.errorDescription ?? ""))
                continuation.yield(.terminate)
            },
            .init(descriptor: edits.descriptor) { if edits.drain() { continuation.yield(.localEdit) } },
            .init(descriptor: network.descriptor) { if network.drain() > 0 { continuation.yield(.networkChanged) } },
            .init(descriptor: signals.descriptor) {
                for signal in signals.drain() { continuation.yield(signal == SIGHUP ? .hangUp : .terminate) }
            },
        ])
        var chores = WatchChores(store: store, configuration: initial, output: output, events: continuation)
        output.notice(.watching(home: store.home.url.path))
        continuation.yield(.started)
        var state = WatchMachine.State()
        var status = WatchStatus(processID: getpid())
        status.write(to: store.home)
        var unreachableSince: Date?
        for await event in events {
            let before = state
            let now = chores.configuration.settings.now()
            let transition = WatchMachine.decide(state, event, now: now)
            state = transition.state
            if state.network != .offline {
                unreachableSince = nil
            } else if unreachableSince == nil {
                unreachableSince = now
            }
            let current = WatchStatus(state, processID: getpid(), unreachableSince: unreachableSince)
            if current != status, state.phase != .stopped {
                status = current
                status.write(to: store.home)
            }
            let probes = chores.configuration.settings.reachability.probeCount
            if before.network == .offline, state.network == .reachable { output.notice(.online(probes: probes)) }
            if before.network != .offline, state.network == .offline {
                output.notice(.offline(probes: probes))
                chores.releaseLongPollClient()
            }
            for action in transition.actions {
                if action == .reloadConfiguration {
                    do {
                        chores.reconfigure(try reload())
                        output.notice(.reloaded)
                    } catch {
                        output.notice(.reloadFailed((error as? any LocalizedError)?.errorDescription ?? "\(error)"))
                    }
                } else {
                    chores.perform(action, because: event)
                }
            }
            if state.phase == .stopped { break }
        }
        continuation.finish()
        await chores.end()
        WatchStatus.remove(from: store.home)
        descriptors.stop()
        withExtendedLifetime((edits, network, signals, files)) {}
        output.notice(.stopped)
        if let change = changed.withLock({ $0 }) { throw WatchError(.homeFileChanged(change)) }
    }

    /// The files of `home` the watcher uses, as it opened them: the database, the edit FIFO (`edits`), the lock.
    static func keptFiles(of home: RecipesHome, edits: EditSignalListener) throws(WatchError) -> [HomeFiles.Kept] {
        let files: [(path: String, identity: HomeFiles.Identity?, consequence: String)] = [
            (home.databaseURL.path, HomeFiles.Identity.of(path: home.databaseURL.path),
             "the watcher would sync a file no command uses"),
            (home.editSignalURL.path, HomeFiles.Identity.of(descriptor: edits.descriptor),
             "edits would no longer wake the watcher"),
            (home.watchLockURL.path, HomeFiles.Identity.of(path: home.watchLockURL.path),
             "a second watcher could start beside it"),
        ]
        return try files.map { (file) throws(WatchError) in
            guard let identity = file.identity else {
                throw WatchError(.system(ErrnoError(errno, .inspect, path: file.path)))
            }
            return HomeFiles.Kept(path: file.path, identity: identity, consequence: file.consequence)
        }
    }
}
