import Foundation
import Locking

/// The optional requests a contract server lists in `GET /v1/health` (`"features"`, docs/http-api.md, "Optional
/// requests"). A client uses one only when its server lists it; a server that lists none (or answers without
/// `features`, as older ones do) gets the requests every server answers.
struct ServerFeatures: Sendable, Equatable {
    /// The names listed, as the server spells them.
    let names: Set<String>

    /// A server without optional requests.
    static let none = ServerFeatures(names: [])

    init(names: Set<String>) {
        self.names = names
    }

    /// The features of a `GET /v1/health` answer's body: its `features` array's strings; none when the body is not a
    /// JSON object, has no `features`, or it is not a list (whatever else a name is, it is not one the client uses).
    init(healthAnswer body: Data) {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
            let listed = object["features"] as? [Any]
        else {
            self = .none
            return
        }
        names = Set(listed.compactMap { $0 as? String })
    }

    /// `POST /v1/images/missing`.
    var imagesMissing: Bool { names.contains("images-missing") }
    /// `POST /v1/recipes/batch`.
    var recipesBatch: Bool { names.contains("recipes-batch") }
    /// Partial image uploads resumed with `HEAD` and `PATCH`.
    var resumableImages: Bool { names.contains("resumable-images") }

    /// These features without `refused`.
    func removing(_ refused: some Sequence<String>) -> ServerFeatures {
        ServerFeatures(names: names.subtracting(refused))
    }
}

/// The server's features, asked once per run and kept for it, with the round trip the ask measured: the first caller
/// asks, the others wait for that answer. A failed ask is not kept (the next caller asks again).
final class FeatureCache: Sendable {
    /// What the ask learned.
    struct Learned: Sendable {
        let features: ServerFeatures
        let roundTrip: Duration
    }

    private let asked = Locked<Task<Learned, any Error>?>(nil)
    /// The features the server listed but answered as a server without them (`refuse`), with what it answered, in
    /// the order they were refused.
    private let refused = Locked<[(feature: String, words: String)]>([])

    init() {}

    /// Takes `feature` off the server's list for the rest of the run (its request answered as no recipes server
    /// answers a request it lists: `404`, `405`, `501`, a proxy before the server, say): the requests every server
    /// answers are sent instead; `words` says which request failed and how.
    func refuse(_ feature: String, words: String) {
        refused.withLock { refused in
            if !refused.contains(where: { $0.feature == feature }) { refused.append((feature, words)) }
        }
    }

    /// Whether `feature` was refused in this run.
    func isRefused(_ feature: String) -> Bool { refused.withLock { $0.contains { $0.feature == feature } } }

    /// The refused features (`refuse`), each in words.
    var refusals: [String] { refused.withLock { $0.map(\.words) } }

    /// The names of the refused features.
    var refusedNames: [String] { refused.withLock { $0.map(\.feature) } }

    /// What `ask` learned the first time (and again after a failure or a cancellation). With `cancelling`, this
    /// waiter's cancellation cancels the ask itself (for the run's own wait for its plan; a chain's cancellation must
    /// not fail the other chains waiting for the same answer).
    func learned(
        cancelling: Bool = false, _ ask: @escaping @Sendable () async throws -> Learned
    ) async throws -> Learned {
        let task = asked.withLock { asked in
            if let task = asked { return task }
            let task = Task { try await ask() }
            asked = task
            return task
        }
        do {
            // A run ending early waits for its health ask: cancelled, the request ends at once instead of running out
            // its time on a server that does not answer.
            return try await withTaskCancellationHandler { try await task.value } onCancel: { if cancelling { task.cancel() } }
        } catch {
            asked.withLock { asked in if asked == task { asked = nil } }
            throw error
        }
    }
}
