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
    /// Something answers, but it is not a recipes server, or it speaks another protocol (what to fix, in words): a
    /// set-up mistake no later run cures (`DestinationDiagnosis`).
    case setupMistake(String)

    /// Asks the server of `settings` about the changes after `cursor`.
    ///
    /// Reachability is asked first (`SyncSettings.reachability`, as every step's condition does): a cron run on a
    /// laptop that is offline ends without loading libcurl (whose libraries cost more than the rest of the run).
    public static func ask(_ settings: SyncSettings, after cursor: FeedCursor) async -> FeedCheck {
        guard let api = settings.api, let server = cursor.server else { return .changes }
        guard await settings.reachability.isReachable(api.baseURL) else {
            return .unreachable(settings.reachability.unreachableWords(api.baseURL))
        }
        func diagnosed(_ observation: DestinationDiagnosis.Observation) -> FeedCheck? {
            guard let destination = DestinationDiagnosis.Destination(url: api.baseURL) else { return nil }
            let diagnosis = DestinationDiagnosis.classify(observation, of: destination)
            guard diagnosis.isSetUpMistake, let words = diagnosis.words else { return nil }
            return .setupMistake(TransferOutcome.redact(words, token: settings.token))
        }
        let client: HTTPClient
        do {
            client = try HTTPClient(configuration: HTTPClientConfiguration(
                credentials: .of(settings.token, at: api.baseURL), caBundlePath: settings.caBundlePath,
                maxConcurrentTransfers: 1))
        } catch {
            return .changes  // the full run reports what is wrong with the client's settings
        }
        do {
            let response = try await settings.reachability.transfer(to: api.baseURL) { () async throws(TransportError) in
                try await client.send(api.changes(since: cursor.seq, limit: 1))
            }
            let body = String(decoding: response.body.prefix(512), as: UTF8.self)
            if let mistake = diagnosed(.answer(status: response.status, request: .always, body: body)) { return mistake }
            guard response.status == 200, let page = ChangesPage(response.body) else { return .changes }
            return page.server == server && page.changes.isEmpty ? .nothingNew : .changes
        } catch {
            if let mistake = diagnosed(.transport(error.kind, message: error.message)) { return mistake }
            switch error.kind {
            case .connectionRefused, .connectTimeout, .dnsFailure:
                return .unreachable(TransferOutcome.redact(error.message, token: settings.token))
            default:
                return .changes
            }
        }
    }
}
