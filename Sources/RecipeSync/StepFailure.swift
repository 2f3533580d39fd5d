import Foundation
import OperationEngine
import Transport

/// Why one step of a recipe's chain failed, sorted the way the retry policy and the run need.
public struct StepFailure: Error, RetryClassifiable, CustomStringConvertible, Sendable, Equatable {
    /// The kind of failure.
    public enum Kind: Sendable, Equatable {
        /// Worth retrying later (reset, timeout, 408, 429, 5xx), after at least `retryAfter` when the server said so.
        case transient(retryAfter: Duration?)
        /// Retrying will not help: the recipe becomes `failed` with the message.
        case permanent
        /// The server refused the credentials (401, 403): the whole run stops, exit 77.
        case credentials
        /// Another device wrote first and the merge left conflicts: a person must choose (`recipes resolve`).
        case conflict
        /// Not done in this run, nothing failed: another device kept writing while this one merged (three rounds of
        /// `412`), or the recipe changed hands; a later run goes on.
        case later
        /// This process lost the recipe's lease, or the recipe was deleted meanwhile: stop without recording a failure.
        case leaseLost
        /// The destination is not a recipes server, or speaks another protocol (`DestinationDiagnosis`): the whole run
        /// stops (exit 1), the recipe stays as it was; the message says what to fix in server.url.
        case setup
    }

    /// The kind.
    public var kind: Kind
    /// What happened, in words, without any token.
    public var message: String

    /// Creates a failure.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }

    /// Transient failures are retried; everything else is not.
    public var failureKind: FailureKind {
        if case .transient(let retryAfter) = kind { return .transient(retryAfter: retryAfter) }
        return .permanent
    }

    /// The failure a transfer outcome stands for, or nil for a success. `what` names the request in messages.
    public static func from(_ outcome: TransferOutcome, what: String) -> StepFailure? {
        switch outcome {
        case .success:
            return nil
        case .transient(let reason, let retryAfter):
            return StepFailure(.transient(retryAfter: retryAfter), reason)
        case .badCredentials(let status, let message):
            return StepFailure(
                .credentials,
                "not uploaded: the server refused the credentials (\(message.isEmpty ? "HTTP \(status)" : message)); "
                    + "check server.token (`recipes config set server.token -`)")
        case .notTheServer(_, let message):
            // A captive portal's redirect says nothing about the recipe: it stays due, no attempt counted, and the
            // next run sends it (retrying at once only meets the portal again).
            return StepFailure(.later, "\(what): \(message)")
        case .permanent(_, let message):
            return StepFailure(.permanent, "\(what): \(message)")
        case .cancelled:
            return StepFailure(.permanent, "\(what): cancelled")
        }
    }

    /// What a recipe's owner can do about a transport failure of `kind` that retrying does not fix, or nil when
    /// retrying is the answer.
    public static func advice(for kind: TransportError.Kind) -> String? {
        switch kind {
        case .tls:
            "check the server's certificate; for a private CA set server.ca_bundle (or RECIPES_CA_BUNDLE) to its PEM file"
        case .fileUnreadable:
            "check that the image's local copy in the home's media folder is readable, or attach the image again"
        case .invalidRequest:
            "check server.url (it must start with http:// or https://)"
        case .responseTooLarge, .malformedAnswer:
            "check that server.url points at a recipes server"
        case .setupFailed:
            "check server.ca_bundle (or RECIPES_CA_BUNDLE) and the libcurl installation (libcurl4)"
        default:
            nil
        }
    }
}
