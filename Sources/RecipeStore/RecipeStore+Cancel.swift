import Foundation
import GRDB
import RecipeModels

extension RecipeStore {
    /// Cancels recipe `id`'s upload wherever it is (`recipes cancel`): queued or waiting → `cancelled`; leased by a
    /// live process → `cancelled` with `cancelRequested` set, which that process polls. Unknown id throws.
    public func requestCancel(id: Int64, now: Date, isOwnerAlive: @escaping (String) -> Bool) throws(StoreError) -> CancelResult {
        try write { db in
            guard let recipe = try Self.storedRecipe(id, db) else { throw StoreError(.unknownRecipe(id: id)) }
            let live = recipe.sync.hasLiveLease(at: now) && recipe.sync.leaseOwner.map(isOwnerAlive) == true
            let known = SyncRecord(sync: recipe.sync, image: recipe.image)
            let transition = try Self.apply(.cancelRequested(leaseAlive: live), to: id, known: known, db)
            return transition?.cancel ?? .nothingToCancel(state: recipe.sync.state)
        }
    }
}
