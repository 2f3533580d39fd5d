import Foundation
import MealieAPI
import RecipeModels
import Transport

/// What `recipes doctor` learns of the configured server: whether it can be reached, is the kind of server
/// server.kind says, and takes this device's token. One request with the token — a recipes server's
/// `GET /v1/changes?since=0&limit=1`, a Mealie's `MealieDiagnosis` (about, then the token's group) — after the one
/// reachability answer every step asks.
public enum ServerCheck: Sendable, Equatable {
    /// The server answered the request with the token (or, without one, a server that needs none): its id (a recipes
    /// server's) or group (a Mealie's), in words.
    case accepted(String)
    /// Nothing answered (offline, nothing listening, a timeout), in words: a later run tries again.
    case unreachable(String)
    /// Something answers, but not as the configured kind of server, or over the wrong protocol, in words.
    case setupMistake(String)
    /// The server refused the credentials (`status`); `tokenSet` says whether this device sent a token at all.
    case credentialsRefused(status: Int, tokenSet: Bool)
    /// Any other answer (a server error, a refusal of the client's settings), in words, never the token.
    case unexpected(String)

    /// Asks the server of `settings`; nil when no server is set.
    public static func ask(_ settings: SyncSettings) async -> ServerCheck? {
        guard let api = settings.api else { return nil }
        guard await settings.reachability.isReachable(api.baseURL) else {
            return .unreachable(settings.reachability.unreachableWords(api.baseURL))
        }
        var configuration = HTTPClientConfiguration(
            credentials: .of(settings.token, at: api.baseURL), caBundlePath: settings.caBundlePath,
            maxConcurrentTransfers: 1)
        configuration.haltingStatuses = []
        let client: HTTPClient
        do {
            client = try HTTPClient(configuration: configuration)
        } catch {
            return .unexpected(error.message + (StepFailure.advice(for: error.kind).map { "; " + $0 } ?? ""))
        }
        switch settings.kind {
        case .mealie: return await askMealie(api: api, client: client, settings: settings)
        case .http: return await askRecipesServer(api: api, client: client, settings: settings)
        }
    }

    private static func askRecipesServer(api: ServerAPI, client: HTTPClient, settings: SyncSettings) async -> ServerCheck {
        let destination = DestinationDiagnosis.Destination(url: api.baseURL)
        func mistake(_ observation: DestinationDiagnosis.Observation) -> ServerCheck? {
            guard let destination else { return nil }
            let diagnosis = DestinationDiagnosis.classify(observation, of: destination)
            guard diagnosis.isSetUpMistake, let words = diagnosis.words else { return nil }
            return .setupMistake(TransferOutcome.redact(words, token: settings.token))
        }
        let result: Result<HTTPResponse, TransportError>
        do {
            result = .success(try await settings.reachability.transfer(to: api.baseURL) { () async throws(TransportError) in
                try await client.send(api.changes(since: 0, limit: 1))
            })
        } catch {
            result = .failure(error)
        }
        return verdict(result, mistake: mistake, token: settings.token, now: settings.now())
    }

    /// The verdict on the answer to `GET /v1/changes?since=0&limit=1` sent with the device's token (`token`): a plain
    /// function of the answer, tested from a table; `mistake` names a set-up mistake the answer reveals.
    static func verdict(
        _ result: Result<HTTPResponse, TransportError>, mistake: (DestinationDiagnosis.Observation) -> ServerCheck?,
        token: String?, now: Date
    ) -> ServerCheck {
        switch result {
        case .failure(let error):
            if let found = mistake(.transport(error.kind, message: error.message)) { return found }
            switch error.kind {
            case .connectionRefused, .connectTimeout, .dnsFailure:
                return .unreachable(TransferOutcome.redact(error.message, token: token))
            default: break
            }
        case .success(let response):
            let body = String(decoding: response.body.prefix(512), as: UTF8.self)
            if let found = mistake(.answer(status: response.status, request: .always, body: body)) { return found }
            if response.status == 200, let page = ChangesPage(response.body) {
                return .accepted("server \(page.server)")
            }
        }
        switch TransferOutcome.classify(result, now: now, redacting: token) {
        case .badCredentials(let status, _): return .credentialsRefused(status: status, tokenSet: token != nil)
        case .success(let status): return .unexpected("HTTP \(status) without the changes feed's JSON: check server.url")
        case .transient(let reason, _): return .unexpected(reason)
        case .notTheServer(_, let message), .permanent(_, let message): return .unexpected(message)
        case .cancelled: return .unexpected("cancelled")
        }
    }

    private static func askMealie(api: ServerAPI, client: HTTPClient, settings: SyncSettings) async -> ServerCheck {
        guard let server = MealieServer(baseURL: api.baseURL) else {
            return .setupMistake("server.url is not a Mealie's base URL")
        }
        let requests = MealieDestinationRequests(server: server, client: client, token: settings.token, now: settings.now)
        switch await requests.diagnose() {
        case .mealie(let group): return .accepted("group \(group.name)")
        case .notAMealie(let words): return .setupMistake(words)
        case .tokenRefused: return .credentialsRefused(status: 401, tokenSet: settings.token != nil)
        case .unreachable(let words): return .unreachable(words)
        case .serverError(let words): return .unexpected(words)
        }
    }
}
