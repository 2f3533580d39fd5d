import Foundation
import RecipeStore
import Transport

/// Whether the server has anything new for a home that has nothing to push: what an idle cron run asks before it
/// opens the store, with one `GET /v1/changes?since=<cursor>&limit=1`.
public enum FeedCheck: Sendable, Equatable {
    /// The server is the one the cursor belongs to and has no change after it: nothing to do.
    case nothingNew
    /// Changes wait (or the server is another one, or the answer could not tell): a full run is needed.
    case changes
    /// The server could not be reached (why, in words): nothing can be pulled now.
    case unreachable(String)

    /// Asks the server of `settings` about the changes after `cursor`.
    ///
    /// The server's host is probed first, as every step's reachability condition does: a cron run on a laptop that is
    /// offline ends without loading libcurl (whose libraries cost more than the rest of the run).
    public static func ask(_ settings: SyncSettings, after cursor: FeedCursor) async -> FeedCheck {
        guard let api = settings.api, let server = cursor.server else { return .changes }
        if let target = ConnectProbe.hostAndPort(of: api.baseURL),
           !(await settings.probe.isReachable(host: target.host, port: target.port)) {
            return .unreachable("cannot reach \(target.host):\(target.port)")
        }
        let client: HTTPClient
        do {
            client = try HTTPClient(configuration: HTTPClientConfiguration(
                bearerToken: settings.token, tokenOrigin: api.baseURL, caBundlePath: settings.caBundlePath,
                maxConcurrentTransfers: 1))
        } catch {
            return .changes  // the full run reports what is wrong with the client's settings
        }
        do {
            let response = try await client.send(api.changes(since: cursor.seq, limit: 1))
            guard response.status == 200, let page = ChangesPage(response.body) else { return .changes }
            return page.server == server && page.changes.isEmpty ? .nothingNew : .changes
        } catch {
            switch error.kind {
            case .connectionRefused, .connectTimeout, .dnsFailure:
                return .unreachable(TransferOutcome.redact(error.message, token: settings.token))
            default:
                return .changes
            }
        }
    }
}
