import Testing
@testable import RecipeSync

/// `ChainRound`: what a recipe's last step does after each answer or merge, from a table. A stale write is a result
/// the step goes on from (read, merge, write again), within the bound on rounds; a deletion never deletes again.
@Suite("ChainRound decides the rounds after a stale write: read, merge, write again, at most 3 writes")
struct ChainRoundTests {
    typealias Event = ChainRound.Event
    typealias Next = ChainRound.Next

    static let kept = StepFailure(.later, "another device kept writing this recipe while it was merged (3 rounds); a later run goes on")
    static let goneWhileWriting = StepFailure(.later, "the recipe changed on the server and was taken over or removed meanwhile")
    static let changedWhileDeleting = StepFailure(.later, "the recipe changed on the server while its deletion was sent; a later run goes on")

    /// (event, round, deletion, next)
    static let table: [(Event, Int, Bool, Next)] = [
        // A write.
        (.stale(copyKnown: false), 1, false, .read),      // the contract server's 412: the copy is read
        (.stale(copyKnown: true), 1, false, .merge),      // a destination that read the copy to find out (Mealie)
        (.merged(.push), 1, false, .write),
        (.merged(.push), 2, false, .write),
        (.merged(.push), 3, false, .fail(kept)),          // the third write was stale too: a later run goes on
        (.merged(.synced), 2, false, .finish),            // the server had the draft (its answer was lost)
        (.merged(.conflict("changed here and on the server: title")), 1, false,
         .fail(StepFailure(.conflict, "changed here and on the server: title"))),
        (.merged(.gone), 1, false, .fail(goneWhileWriting)),
        (.merged(.refused("its title is empty")), 1, false,
         .fail(StepFailure(.permanent, "recipe: not sent over the server's copy: its title is empty"))),
        // A deletion.
        (.stale(copyKnown: false), 1, true, .read),
        (.merged(.gone), 1, true, .finish),               // deleted there too
        (.merged(.synced), 1, true, .finish),
        (.merged(.push), 1, true, .fail(changedWhileDeleting)),
        (.merged(.conflict("deleted here, changed on the server")), 1, true,
         .fail(StepFailure(.conflict, "deleted here, changed on the server"))),
        (.merged(.refused("its title is empty")), 1, true,
         .fail(StepFailure(.permanent, "delete: not sent over the server's copy: its title is empty"))),
    ]

    @Test("every row of the table", arguments: table.indices)
    func row(_ index: Int) {
        let (event, round, deletion, expected) = Self.table[index]
        #expect(ChainRound.next(after: event, round: round, deletion: deletion) == expected, "row \(index): \(event)")
    }

    @Test("a write stale every time ends after exactly maxRounds writes, with a read and a merge after each")
    func boundOnRounds() {
        var round = 1
        var writes = 1
        var moves: [Next] = []
        while true {
            moves.append(ChainRound.next(after: .stale(copyKnown: false), round: round, deletion: false))
            let next = ChainRound.next(after: .merged(.push), round: round, deletion: false)
            moves.append(next)
            guard next == .write else { break }
            round += 1
            writes += 1
        }
        #expect(writes == ChainRound.maxRounds)
        #expect(moves == [.read, .write, .read, .write, .read, .fail(Self.kept)])
    }
}
