import Foundation
import Transport

/// Why an operation on a Mealie did not complete, as the sync acts on it (the same four answers as the contract
/// server's chain: try again later, give this recipe up, stop the run, or stop because cancelled).
public enum MealieFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// Transient (a lost answer, a reset, a `5xx`, an answer that is not Mealie's): try again, after `after` when
    /// Mealie said so (`Retry-After`).
    case retry(reason: String, after: Duration?)
    /// Mealie refuses this request for good (a `4xx` other than a refused token; a recipe's `403`): the recipe fails.
    case refused(message: String)
    /// The token was refused (`401`, or `403` on the token's own group): the run stops, exit 77.
    case badCredentials(message: String)
    /// The transfer was cancelled.
    case cancelled

    /// One line saying what happened.
    public var description: String {
        switch self {
        case .retry(let reason, _): reason
        case .refused(let message): message
        case .badCredentials(let message): message
        case .cancelled: "cancelled"
        }
    }

    /// The failure of a request answered by `result`, which was not the answer expected (`problem`, when the status
    /// was a success but the body was not right). A `403` is `badCredentials` only when `recipeScoped` is false: on
    /// one recipe it is Mealie refusing that recipe (a locked one of another household), not the token.
    static func of(_ result: Result<HTTPResponse, TransportError>, unexpected problem: MealieAnswerError?, recipeScoped: Bool,
                   now: Date, token: String?) -> MealieFailure {
        if case .success(let response) = result, response.status == 403, recipeScoped {
            return .refused(message: "Mealie refused this recipe (HTTP 403: \(MealieErrorBody.message(in: response.body) ?? "Permission Denied"))")
        }
        switch TransferOutcome.classify(result, now: now, redacting: token) {
        case .success(let status):
            return .retry(reason: problem.map { TransferOutcome.redact($0.description, token: token) }
                              ?? "Mealie answered HTTP \(status), which this request does not expect", after: nil)
        case .transient(let reason, let retryAfter):
            return .retry(reason: reason, after: retryAfter)
        case .notTheServer(_, let message):
            // A captive portal's or a proxy's redirect: not Mealie refusing anything.
            return .retry(reason: message, after: nil)
        case .badCredentials(_, let message):
            return .badCredentials(message: message)
        case .permanent(let status, let message):
            guard let status, let says = (try? result.get()).flatMap({ MealieErrorBody.message(in: $0.body) }) else {
                return .refused(message: message)
            }
            return .refused(message: "HTTP \(status): \(TransferOutcome.redact(says, token: token))")
        case .cancelled:
            return .cancelled
        }
    }
}
