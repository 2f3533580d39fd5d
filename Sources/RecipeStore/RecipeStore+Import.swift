import Foundation
import GRDB
import RecipeModels

/// One recipe an import writes: a new one, or an update of the recipe that has the page's address already.
public struct ImportWrite: Sendable, Equatable {
    /// What the page holds.
    public var recipe: RecipeStore.NewRecipe
    /// The recipe it updates (one that has its `url`), or nil to create one.
    public var replacing: Int64?

    /// Creates an import write.
    public init(recipe: RecipeStore.NewRecipe, replacing: Int64? = nil) {
        self.recipe = recipe
        self.replacing = replacing
    }
}

/// What an import did to one recipe.
public enum ImportOutcome: Sendable, Equatable {
    /// A new recipe, pending upload at revision 1.
    case created
    /// The recipe it replaces now holds the page's fields and properties, at its next revision.
    case updated
    /// The recipe it replaces held them already: nothing was written.
    case unchanged
}

extension RecipeStore {
    /// Writes an import in one transaction (all or none): creates the new recipes (each with a fresh UUID, pending at
    /// revision 1) and makes each replaced one hold the page's content, properties and image with one revision bump
    /// (none when it held them already). Staged images are moved into place under the media lock first; a media copy
    /// no recipe refers to any more afterwards is removed. Returns each recipe as written, in order, with what was
    /// done.
    ///
    /// Refused before anything is written: a recipe without a title or with text the store refuses; in the
    /// transaction: a replaced recipe that is unknown or deleted. On any failure the staged copies are discarded.
    public func importRecipes(_ writes: [ImportWrite]) throws(StoreError) -> [(recipe: Recipe, outcome: ImportOutcome)] {
        let staged = writes.compactMap(\.recipe.image)
        do throws(StoreError) {
            for write in writes {
                guard !write.recipe.content.title.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                    throw StoreError(.emptyTitle)
                }
                try Self.check(write.recipe.content)
            }
        } catch {
            staged.forEach(media.discard)
            throw error
        }
        let stamp = now().timeIntervalSince1970
        var results: [(id: Int64, outcome: ImportOutcome)] = []
        do throws(StoreError) {
            try media.withExclusiveAccess { () throws(StoreError) in
                for image in staged { try media.install(image) }
                var unneeded: [String] = []
                do throws(StoreError) {
                    results = try edit { db in
                        try writes.map { write -> (id: Int64, outcome: ImportOutcome) in
                            guard let id = write.replacing else {
                                let id = try Self.insert(write.recipe, stamp: stamp, db)
                                try Self.noteOrigin(.import, of: id, db)
                                return (id, .created)
                            }
                            let (changed, letGo) = try self.replaceImported(id, with: write.recipe, db)
                            if let letGo, let name = try Self.unreferencedCopy(letGo, keeping: nil, db) { unneeded.append(name) }
                            return (id, changed ? .updated : .unchanged)
                        }
                    }
                } catch {
                    // Copies no recipe refers to (a recipe elsewhere may share one: only unreferenced ones go).
                    for image in staged {
                        let unreferenced = try? read { db in try Self.unreferencedCopy(image.fileName, keeping: nil, db) }
                        if let name = unreferenced ?? nil { media.remove(name) }
                    }
                    throw error
                }
                unneeded.forEach(media.remove)
            }
        } catch {
            staged.forEach(media.discard)
            throw error
        }
        var written: [(recipe: Recipe, outcome: ImportOutcome)] = []
        for (id, outcome) in results { written.append((try recipe(id: id), outcome)) }
        return written
    }

    /// Makes recipe `id` hold `new`'s content, kept properties and (when it brings a copy of other bytes) image,
    /// inside the caller's transaction, with one revision bump when anything changed; whether anything did, and the
    /// media copy it let go.
    private func replaceImported(_ id: Int64, with new: NewRecipe, _ db: Database) throws -> (Bool, String?) {
        let row = try Self.editableRow(db, id: id)
        let sent = try SentDraft.beforeEdit(row, id: id, db)
        let before = try Self.conflictBeforeEdit(row, id: id, db)
        var changed = try Self.write(new.content, received: new.received, over: row, db)
        var letGo: String?
        if let image = new.image, (row["image_sha256"] as String?) != image.sha256 {
            try db.execute(
                sql: "UPDATE recipes SET image_sha256 = ?, image_format = ?, image_bytes = ?, image_file = ? WHERE id = ?",
                arguments: [image.sha256, image.format.rawValue, image.byteCount, image.fileName, id])
            letGo = row["image_file"]
            changed = true
        }
        if changed {
            try sent?.remember(id, db)
            try markChanged(id, settling: before, in: db)
            try Self.noteOrigin(.import, of: id, db)
        }
        return (changed, letGo)
    }
}
