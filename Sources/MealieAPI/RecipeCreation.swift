import Foundation
import Transport

/// Creating a recipe in Mealie exactly once, across lost answers, resets and `kill -9`: the decision after each
/// answer, as plain functions tested from a table (`RecipeCreationTests`).
///
/// The recipe is created by the zip import under the client's own id (`RecipeArchive`), so Mealie's primary key is
/// the idempotency key: an import sent again after it landed cannot make a second recipe, it fails with `500`
/// (`UNIQUE constraint failed: recipes.id`, after Mealie's ten renaming retries all hit the same id). Every answer
/// of the import, `201` included, is then confirmed by reading the recipe back by id: Mealie 2.0 writes every
/// uploaded archive to the same temporary file (`my_zip_archive.zip`), so concurrent imports can read each other's
/// archive, and a `201` may name another request's recipe (measured: 2 of 160 imports sent 16 at a time; 15 others
/// failed with `500`). There, the recipe is created (whichever attempt made it); absent, the import is sent again.
/// Nothing needs recording before the import is sent: whatever became of an earlier attempt, sending it again
/// converges. A client sends its imports one at a time, so that only other clients' imports can collide with
/// them (docs/mealie.md, "Creating exactly once").
public enum RecipeCreation {
    /// What to do next.
    public enum Next: Sendable, Equatable {
        /// Read the recipe back (`GET /api/recipes/{id}`): the import's answer (`201` or `500`) does not prove
        /// whether recipe `id` exists.
        case readBack(importStatus: Int)
        /// The recipe exists, as Mealie has it: made by this import or an earlier one whose answer was lost (or whose
        /// process was killed). Its fields are what was sent unless someone edited it since; the chain compares them
        /// as it does for any write whose answer was lost.
        case created(RecipeStamp)
        /// Send the import again later (after `after` when Mealie said so): it is safe whatever became of this one.
        case retry(reason: String, after: Duration?)
        /// Mealie refuses this import for good (`4xx`): the recipe fails with the message.
        case refused(message: String)
        /// The token was refused: the run stops.
        case badCredentials(message: String)
        /// The transfer was cancelled.
        case cancelled
    }

    /// After `POST /api/recipes/create/zip`: `201` and `500` are read back; a lost answer, a reset or another
    /// transient status is sent again; other refusals end the recipe's attempt. `now` anchors an HTTP-date
    /// `Retry-After`; `token` is redacted from every message.
    public static func afterImport(_ result: Result<HTTPResponse, TransportError>, now: Date, redacting token: String? = nil) -> Next {
        if case .success(let response) = result, response.status == 201 || response.status == 500 {
            return .readBack(importStatus: response.status)
        }
        return classified(result, now: now, token: token)
    }

    /// After the read-back of recipe `id` that followed an import answered `importStatus`: `200` with that recipe is
    /// created; Mealie's `404` means the import created nothing (Mealie could not read the archive, another
    /// request's archive took its place, or a fault of Mealie's), so it is sent again, and the run's retry limit ends
    /// a failure that repeats.
    public static func afterReadBack(_ result: Result<HTTPResponse, TransportError>, id: UUID, importStatus: Int, now: Date,
                                     redacting token: String? = nil) -> Next {
        guard case .success(let response) = result, response.status == 200 || response.status == 404 else {
            return classified(result, now: now, token: token)
        }
        switch MealieAnswer.recipe(response, id: id) {
        case .success(let stamp?):
            return .created(stamp)
        case .success(nil):
            return .retry(reason: "Mealie answered the creation of recipe \(id.lowercased) with HTTP \(importStatus) and has not "
                              + "created it (see Mealie's log)", after: nil)
        case .failure(let error):
            return .retry(reason: error.description, after: nil)
        }
    }

    /// Every answer without a meaning of its own for a creation: the failure `MealieFailure` reads in it.
    private static func classified(_ result: Result<HTTPResponse, TransportError>, now: Date, token: String?) -> Next {
        switch MealieFailure.of(result, unexpected: nil, recipeScoped: false, now: now, token: token) {
        case .retry(let reason, let after): .retry(reason: reason, after: after)
        case .refused(let message): .refused(message: message)
        case .badCredentials(let message): .badCredentials(message: message)
        case .cancelled: .cancelled
        }
    }
}
