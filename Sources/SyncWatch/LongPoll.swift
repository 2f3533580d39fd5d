import Foundation
import RecipeModels
import RecipeStore
import RecipeSync
import Transport

/// The server's long poll: `GET /v1/changes?since=<cursor>&limit=1&wait=<seconds>`, which the server holds until a
/// change after the cursor exists or the wait has passed. One request at a time, on a client of its own whose
/// low-speed limit outlasts the wait (a held answer sends nothing until it answers).
public struct LongPoll: Sendable {
    /// The server's requests.
    public let api: ServerAPI
    /// How long the server is asked to hold an empty answer, in seconds (the contract allows up to 60).
    public let wait: Int
    private let client: HTTPClient
    private let reachability: Reachability
    private let now: @Sendable () -> Date

    /// The wait the watcher asks for: under the server's 60 s and under the idle timeouts of common proxies.
    public static let defaultWait = 50

    /// A long poll of the server of `settings` (which must have one), holding for `wait` seconds.
    public init(settings: SyncSettings, api: ServerAPI, wait: Int = defaultWait) throws(TransportError) {
        self.api = api
        self.wait = min(max(1, wait), 60)
        self.now = settings.now
        reachability = settings.reachability
        client = try HTTPClient(configuration: HTTPClientConfiguration(
            credentials: .of(settings.token, at: api.baseURL), caBundlePath: settings.caBundlePath,
            lowSpeedTime: .seconds(self.wait + 30), maxConcurrentTransfers: 1))
    }

    /// Asks the server for changes after `cursor` and waits for its answer; nil when the calling task was cancelled.
    public func ask(after cursor: FeedCursor) async -> WatchMachine.LongPollAnswer? {
        let started = now()
        let outcome: Result<HTTPResponse, TransportError>
        do {
            let request = api.changes(since: cursor.seq, limit: 1, wait: wait)
            outcome = .success(try await reachability.transfer(to: api.baseURL) { () async throws(TransportError) in
                try await client.send(request)
            })
        } catch {
            if error.kind == .cancelled || Task.isCancelled { return nil }
            outcome = .failure(error)
        }
        return Self.answer(outcome, cursor: cursor, held: now().timeIntervalSince(started), wait: wait, now: now())
    }

    /// What a long poll's outcome says, held for `held` seconds of a `wait`:
    /// - a page that moves the cursor (a change after it, or a `next` past it), or another server id (another or a
    ///   reset server): `.changes`; a page of changes the cursor has passed already: `.failed` (a server answering
    ///   wrongly at once must not make a busy loop of passes);
    /// - an empty page after at least half the wait: `.empty`; sooner, the server did not hold it (one that ignores
    ///   `wait`, or one going down): `.failed`, so that the renewals back off instead of spinning;
    /// - 401 or 403: `.refused`; the connection could not be opened: `.unreachable`;
    /// - any other status, a page that is not the feed, a dropped connection: `.failed` (with `Retry-After` if given).
    public static func answer(
        _ outcome: Result<HTTPResponse, TransportError>, cursor: FeedCursor, held: TimeInterval, wait: Int, now: Date
    ) -> WatchMachine.LongPollAnswer {
        switch outcome {
        case .failure(let error):
            switch error.kind {
            case .connectionRefused, .connectTimeout, .dnsFailure: return .unreachable
            default: return .failed(retryAfter: nil)
            }
        case .success(let response):
            switch response.status {
            case 200:
                guard let page = ChangesPage(response.body) else { return .failed(retryAfter: nil) }
                if page.server != cursor.server { return .changes }
                if page.next > cursor.seq || page.changes.contains(where: { $0.seq > cursor.seq }) { return .changes }
                if !page.changes.isEmpty { return .failed(retryAfter: nil) }
                return held >= Double(wait) / 2 ? .empty : .failed(retryAfter: nil)
            case 401, 403:
                return .refused
            default:
                let retryAfter = response.header("retry-after").flatMap { parseRetryAfter($0, now: now) }
                return .failed(retryAfter: retryAfter.map { Double($0.components.seconds) })
            }
        }
    }
}
