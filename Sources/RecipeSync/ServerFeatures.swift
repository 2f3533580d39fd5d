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

    init() {}

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
