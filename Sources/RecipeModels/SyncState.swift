/// Where a recipe stands with the server, as `recipes status` names it.
public enum SyncState: String, Sendable, CaseIterable, Codable {
    /// The server has the current revision.
    case synced
    /// Changed locally and due for upload.
    case pending
    /// A transient failure happened; the next attempt waits for its backoff time.
    case waiting
    /// A process holds the recipe's lease and is uploading it.
    case uploading
    /// Gave up after a permanent error or too many attempts; only an explicit sync retries it.
    case failed
    /// The user cancelled its upload; background sync leaves it alone until it is edited or synced by id.
    case cancelled
    /// Deleted locally; the deletion is still to be sent to the server.
    case deleting
    /// Changed here and on the server in ways a person must choose between (two-way sync): neither pushed nor failed.
    /// Shown, never stored in the `state` column: a recipe is in conflict while it carries conflicts
    /// (`SyncInfo.conflict`), whatever it was before.
    case conflict
}
