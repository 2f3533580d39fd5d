import RecipeStore

/// What follows a stale write or deletion, step by step: a plain decision, tested from a table (`ChainRoundTests`),
/// that `MergeChain` and its merge step follow.
///
/// A write answered "stale" (another device wrote first) is a result, not a failure: the chain reads the server's
/// copy (unless the destination read it already to find out), merges it into the draft (`RecipeStore.mergeAfterStale`),
/// and writes the merge again, at most `maxRounds` writes in all. A deletion answered "stale" reads and merges too,
/// but never deletes again in the same run: the server changed the recipe, so a person or a later run decides.
enum ChainRound {
    /// How many writes of one recipe a run sends when each is answered "stale".
    static let maxRounds = 3

    /// What the latest request or merge came to.
    enum Event: Sendable, Equatable {
        /// The destination had another version; `copyKnown`: its answer carried the copy.
        case stale(copyKnown: Bool)
        /// The merge of the server's copy into the draft came to this.
        case merged(Merge)
    }

    /// What a merge came to (`StaleMerge` without its payload).
    enum Merge: Sendable, Equatable {
        /// The merge is a new revision to write.
        case push
        /// The server has the draft already.
        case synced
        /// A person must choose.
        case conflict(String)
        /// The recipe is gone here, or this process lost its lease.
        case gone
        /// The server's copy breaks the store's rules.
        case refused(String)

        /// The form of `merge`.
        init(_ merge: StaleMerge) {
            switch merge {
            case .push: self = .push
            case .synced: self = .synced
            case .conflict(let conflict): self = .conflict(conflict.summary)
            case .gone: self = .gone
            case .refused(let reason): self = .refused(reason)
            }
        }
    }

    /// What the step does next.
    enum Next: Sendable, Equatable {
        /// The step ends with the result it has.
        case finish
        /// Read the server's copy.
        case read
        /// Merge the copy read into the draft.
        case merge
        /// Write the merge (the round after `round`).
        case write
        /// The step fails so.
        case fail(StepFailure)
    }

    /// The next move of a step writing a recipe (`deletion` false) or deleting it, in write round `round` (from 1).
    static func next(after event: Event, round: Int, deletion: Bool) -> Next {
        let what = deletion ? "delete" : "recipe"
        switch event {
        case .stale(let copyKnown):
            return copyKnown ? .merge : .read
        case .merged(.synced):
            return .finish
        case .merged(.gone):
            return deletion ? .finish : .fail(StepFailure(.later, "the recipe changed on the server and was taken over or removed meanwhile"))
        case .merged(.conflict(let summary)):
            return .fail(StepFailure(.conflict, summary))
        case .merged(.refused(let reason)):
            return .fail(StepFailure(.permanent, "\(what): not sent over the server's copy: " + reason))
        case .merged(.push) where deletion:
            return .fail(StepFailure(.later, "the recipe changed on the server while its deletion was sent; a later run goes on"))
        case .merged(.push) where round >= maxRounds:
            return .fail(StepFailure(
                .later, "another device kept writing this recipe while it was merged (\(maxRounds) rounds); a later run goes on"))
        case .merged(.push):
            return .write
        }
    }
}
