import Foundation
import Transport

/// Whether `server.url` and `server.token` reach a Mealie, in words: the answer of `GET /api/app/about` (no token:
/// every Mealie answers it) tells a Mealie from another server, then `GET /api/groups/self` (with the token) tells a
/// token Mealie takes from one it refuses. A plain function of the two answers (`classify`), tested from a table
/// and against a real Mealie; `MealieDestinationRequests.diagnose()` sends the two requests.
public enum MealieDiagnosis: Sendable, Equatable {
    /// A Mealie that takes the token: the group whose recipes the sync reaches.
    case mealie(MealieGroup)
    /// Something answers at `server.url`, but not as a Mealie 2.x: a set-up mistake (exit 1).
    case notAMealie(String)
    /// The Mealie refuses the token (`401`/`403` on the token's group): exit 77, as for the contract server.
    case tokenRefused(String)
    /// Nothing answered (offline, nothing listening, a timeout): a later run tries again (exit 75).
    case unreachable(String)
    /// The Mealie answered with an error of its own (a `5xx`): a later run tries again (exit 75).
    case serverError(String)

    /// The exit status of a command that stops on this diagnosis (0 for a Mealie that takes the token).
    public var exitStatus: Int32 {
        switch self {
        case .mealie: 0
        case .notAMealie: 1
        case .tokenRefused: 77
        case .unreachable, .serverError: 75
        }
    }

    /// `about` and `group` (nil when `about` already decided) as `server.url` `url` answered them; `hasToken` says
    /// whether a token was sent at all.
    public static func classify(about: Result<HTTPResponse, TransportError>, group: Result<HTTPResponse, TransportError>?,
                                url: String, hasToken: Bool) -> MealieDiagnosis {
        let shown = MealieErrorBody.printable(url, limit: 200)
        let response: HTTPResponse
        switch about {
        case .failure(let error) where error.kind == .tls || error.kind == .malformedAnswer:
            return .notAMealie("server.url \(shown) does not answer as a Mealie (\(error.message)); check its scheme (http:// or "
                + "https://) and port")
        case .failure(let error):
            return .unreachable("cannot reach the Mealie at \(shown): \(error.message)")
        case .success(let answer): response = answer
        }
        if response.status >= 500 {
            return .serverError("the Mealie at \(shown) answered GET /api/app/about with HTTP \(response.status); try again later")
        }
        if case .failure = MealieAnswer.about(response) {
            return .notAMealie("server.url \(shown) answers, but not as a Mealie 2.x does (GET /api/app/about gave HTTP "
                + "\(response.status)\(MealieErrorBody.message(in: response.body).map { ": \($0)" } ?? "")); set server.url to the "
                + "Mealie's base URL, the address of its web app without /api, e.g. http://mealie.local:9000")
        }
        guard let group else { return .unreachable("the token's group was not asked for") }
        let groupAnswer: HTTPResponse
        switch group {
        case .failure(let error): return .unreachable("cannot reach the Mealie at \(shown): \(error.message)")
        case .success(let answer): groupAnswer = answer
        }
        if groupAnswer.status == 401 || groupAnswer.status == 403 {
            let says = MealieErrorBody.message(in: groupAnswer.body).map { ": \($0)" } ?? ""
            return .tokenRefused((hasToken ? "the Mealie at \(shown) refused server.token (HTTP \(groupAnswer.status)\(says))"
                                           : "the Mealie at \(shown) needs a token and server.token is not set")
                + "; make an API token in Mealie (your profile, API Tokens) and set it with `recipes config set server.token -`")
        }
        if groupAnswer.status >= 500 {
            return .serverError("the Mealie at \(shown) answered GET /api/groups/self with HTTP \(groupAnswer.status); try again later")
        }
        switch MealieAnswer.group(groupAnswer) {
        case .success(let found): return .mealie(found)
        case .failure(let error): return .notAMealie("server.url \(shown): \(error.description)")
        }
    }
}

extension MealieDestinationRequests {
    /// Whether this Mealie and token work (`MealieDiagnosis`): `GET /api/app/about`, then `GET /api/groups/self`.
    public func diagnose() async -> MealieDiagnosis {
        let about = await send(server.about())
        guard case .success(let response) = about, response.status < 500, case .success = MealieAnswer.about(response) else {
            return MealieDiagnosis.classify(about: about, group: nil, url: server.baseURL, hasToken: token != nil)
        }
        return MealieDiagnosis.classify(about: about, group: await send(server.group()), url: server.baseURL, hasToken: token != nil)
    }
}
