import Foundation
import RecipeModels
import RecipeStore
import SystemFiles

/// What a running watcher says of itself in `<home>/watch.status`, for `recipes status`: whether it reaches the
/// server, since when it does not, and when it asks again. Written (atomically) when it changes, removed when the
/// watcher stops; read only while the watcher that wrote it holds the home's watch lock, so that one killed with
/// `kill -9` leaves nothing `status` believes.
public struct WatchStatus: Sendable, Equatable, Codable {
    /// The watcher's process id.
    public var processID: Int32
    /// Since when the server could not be reached, while it cannot.
    public var unreachableSince: Date?
    /// When the connect probe asks again (work waits to be sent), if it will.
    public var nextProbe: Date?
    /// Why the watcher retries nothing on its own until a person acts, in words, if so.
    public var halted: String?

    /// Creates a status.
    public init(processID: Int32, unreachableSince: Date? = nil, nextProbe: Date? = nil, halted: String? = nil) {
        self.processID = processID
        self.unreachableSince = unreachableSince
        self.nextProbe = nextProbe
        self.halted = halted
    }

    /// The status of a watcher (process `processID`) in `state`, unable to reach the server since `unreachableSince`.
    public init(_ state: WatchMachine.State, processID: Int32, unreachableSince: Date?) {
        self.processID = processID
        let offline = state.network == .offline
        self.unreachableSince = offline ? unreachableSince : nil
        nextProbe = offline ? state.retryProbe : nil
        switch state.halted {
        case .credentialsRefused: halted = "the server refused the credentials"
        case .setupError: halted = "sync could not start"
        case nil: halted = nil
        }
    }

    /// The line `recipes status` shows, with times as its `next attempt` shows them (UTC).
    public var line: String {
        let who = "watcher (pid \(processID)):"
        if let halted {
            return "\(who) retries nothing on its own: \(halted); see its log, fix it, then `kill -HUP \(processID)`"
        }
        guard let unreachableSince else { return "\(who) watching; the server answers" }
        let since = "the server has not answered since \(Self.stamp(unreachableSince))"
        guard let nextProbe else {
            return "\(who) \(since); nothing waits to be sent, so it waits for the network to change or an edit"
        }
        let longest = Int(WatchMachine.longestOfflineProbeDelay)
        return "\(who) \(since); it tries again at \(Self.stamp(nextProbe)) (then at most every \(longest) s) and "
            + "sends what waits as soon as it answers"
    }

    /// `2026-11-20T10:00:00Z`.
    static func stamp(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day().dateSeparator(.dash).time(includingFractionalSeconds: false)
            .timeSeparator(.colon).timeZone(separator: .omitted))
    }

    /// Where a watcher of `home` keeps its status.
    public static func url(of home: RecipesHome) -> URL { home.url.appendingPathComponent("watch.status") }

    /// The status of the watcher running for `home`; nil when none runs or it wrote none.
    public static func current(of home: RecipesHome) -> WatchStatus? {
        guard let running = WatchLock.runningWatcher(of: home),
            let data = FileManager.default.contents(atPath: url(of: home).path),
            let status = try? decoder.decode(WatchStatus.self, from: data), status.processID == running
        else { return nil }
        return status
    }

    /// Puts this status in place for `home` (a whole file or none); false when it could not be written.
    @discardableResult
    func write(to home: RecipesHome) -> Bool {
        let path = Self.url(of: home).path
        guard let data = try? Self.encoder.encode(self) else { return false }
        do throws(ErrnoError) {
            let file = try AtomicFile(creating: path + ".\(processID).tmp")
            try file.write(data)
            try file.commit(to: path)
            return true
        } catch {
            return false
        }
    }

    /// Removes the status of `home` (the watcher stops).
    static func remove(from home: RecipesHome) {
        try? FileManager.default.removeItem(at: url(of: home))
    }

    private static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = .sortedKeys
        return encoder
    }

    private static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }
}
