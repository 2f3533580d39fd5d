import Foundation
import GRDB
import RecipeModels

/// One chain's end, for `finishChains`.
public struct ChainEnding: Sendable {
    /// The claim the chain ran for.
    public var claim: SyncClaim
    /// How it ended.
    public var result: ChainResult
    /// The image the server confirmed during the chain, whatever the outcome.
    public var confirmedImage: ConfirmedImage?

    public init(_ claim: SyncClaim, _ result: ChainResult, confirmedImage: ConfirmedImage? = nil) {
        self.claim = claim
        self.result = result
        self.confirmedImage = confirmedImage
    }
}

/// What `finishChains` recorded for one chain.
public struct FinishedChain: Sendable, Equatable {
    /// Media copies no longer needed (the server has their image), for the caller to delete under the media lock.
    public var unneededMedia: [String]
    /// Whether the recipe was edited while its chain ran (its revision moved on): the edit is still due.
    public var editedMeanwhile: Bool
}

extension RecipeStore {
    /// Records how the chains of `endings` ended, in one transaction, and releases their leases; returns, in the
    /// same order, the local files each no longer needs (the media copy of an image the server now has), for the
    /// caller to delete under the media lock. The rules (revision fencing, the confirmed image, the lease) are
    /// `RecipeSyncMachine`'s; each end is written first over the record as claimed, and only when the row has
    /// moved on since (an edit, a renewal, a cancellation) is the row read and the end applied to it.
    ///
    /// Not waited for on disk (the next synced commit takes it there): a power cut right after, or a `kill -9` before
    /// the caller recorded a batch, may forget how a chain ended, never anything the user wrote. The recipe is then
    /// still due at the same revision, and the next run sends it again, which the server takes as it takes a
    /// repeated upload after a lost answer; the claim that recorded `sentRevision` was synced, so a deletion still
    /// goes through the server.
    @discardableResult
    public func finishChains(_ endings: [ChainEnding], owner: String) throws(StoreError) -> [FinishedChain] {
        guard !endings.isEmpty else { return [] }
        return try write(waitForDisk: false) { db in
            try endings.map { ending in
                let event = RecipeSyncMachine.Event.chainEnded(
                    owner: owner, claimedRevision: ending.claim.revision, result: ending.result,
                    confirmedImage: ending.confirmedImage)
                guard let transition = try Self.apply(event, to: ending.claim.recipe.id, known: ending.claim.record, db)
                else { return FinishedChain(unneededMedia: [], editedMeanwhile: false) }
                let media = transition.effects.compactMap { effect -> String? in
                    if case .releaseMedia(let name) = effect { return name }
                    return nil
                }
                return FinishedChain(unneededMedia: media, editedMeanwhile: transition.editedMeanwhile)
            }
        }
    }

    /// Lets go of the media copies `fileNames` that no recipe refers to any more, under the media lock: a copy of an
    /// image a recipe still shows (the server confirmed it) moves to `images/`, any other is deleted.
    public func removeUnneededMedia(_ fileNames: [String]) throws(StoreError) {
        guard !fileNames.isEmpty else { return }
        try media.withExclusiveAccess { () throws(StoreError) in
            // One read for all of them: a read per file (a pooled connection, BEGIN, COMMIT) was most of the cost of
            // letting a thousand copies go.
            let (unreferenced, shown) = try read { db in
                let exists = try db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM recipes WHERE image_file = ?)")
                let unreferenced = try fileNames.filter { name in try Bool.fetchOne(exists, arguments: [name]) != true }
                return (unreferenced, try Self.shownImages(unreferenced, db))
            }
            let adopted = images.adopt(unreferenced.filter(shown.contains), from: media)
            for name in unreferenced where !adopted.contains(name) { media.remove(name) }
        }
    }

    /// The names among `fileNames` (media copies, `<sha256>.<ext>`) whose image a recipe shows without a media copy:
    /// the server has it, and `images/` is where this home keeps it.
    static func shownImages(_ fileNames: [String], _ db: Database) throws -> Set<String> {
        let shown = try db.cachedStatement(
            sql: "SELECT EXISTS (SELECT 1 FROM recipes WHERE image_sha256 = ? AND image_file IS NULL)")
        return try Set(fileNames.filter { name in
            try Bool.fetchOne(shown, arguments: [String(name.prefix { $0 != "." })]) == true
        })
    }
}
