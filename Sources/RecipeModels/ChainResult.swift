import Foundation

/// How one recipe's upload chain ended: what the sync tells the recipe's state machine.
public enum ChainResult: Sendable, Equatable {
    /// The server acknowledged `revision` as its `version`, whose fields (the recipe's new base) are `base`.
    case uploaded(revision: Int64, version: Int64, base: RecipeFields)
    /// The server confirmed the deletion (the recipe goes here too).
    case deleted
    /// A transient failure: try again at `at` (attempts counts this one).
    case retryLater(at: Date, attempts: Int, error: String)
    /// A permanent failure, or the last allowed attempt failed.
    case failed(attempts: Int, error: String)
    /// `recipes cancel` stopped it: it stays `cancelled` until edited or synced by id.
    case cancelledByUser
    /// The run was interrupted (Ctrl-C, credentials refused, lease lost): left as it was for a later run.
    case interrupted(error: String?)
    /// The server could not be reached: nothing was sent, no attempt counted.
    case offline(since: Date)

    /// Whether the server has what the chain sent.
    public var succeeded: Bool {
        switch self {
        case .uploaded, .deleted: true
        case .retryLater, .failed, .cancelledByUser, .interrupted, .offline: false
        }
    }
}

/// An image the server confirmed during a chain: its SHA-256 and the URL the server gave for it.
public struct ConfirmedImage: Sendable, Equatable {
    /// The image's SHA-256.
    public var sha256: String
    /// The server's URL of it.
    public var url: String

    /// Creates a confirmation.
    public init(sha256: String, url: String) {
        self.sha256 = sha256
        self.url = url
    }
}
