import PropertyBased
import Testing
@testable import RecipeModels

/// Generators of recipe fields from a tiny alphabet, so that equal values, duplicates and overlapping edits are
/// frequent; a triple is either three independent fields or a base and two edits of it.
enum MergeGen {
    static let words = ["a", "b", "c", "d"]
    static let images: [RecipeImage?] = [nil, TestImages.localA, TestImages.serverA, TestImages.serverB]

    static let word = Gen.int(in: 0...3).map { words[$0] }
    static let list = word.array(of: 0...6)
    static let image = Gen.int(in: 0...3).map { images[$0] }

    static let sections = ["", "S", "T"]
    /// Steps with or without a section, so that a section changed on one side meets a text changed on the other.
    static let steps = zip(word, Gen.int(in: 0...2)).map { Step(text: $0, section: sections[$1]) }.array(of: 0...6)
    /// Texts by key (nutrition, the kept properties) from three keys, each there or not.
    static let keyed = zip(Gen.int(in: 0...7), word, word, word).map { mask, a, b, c -> [String: String] in
        var texts: [String: String] = [:]
        for (bit, key, value) in [(1, "k1", a), (2, "k2", b), (4, "k3", c)] where mask & bit != 0 { texts[key] = value }
        return texts
    }
    static let details = zip(word, list, keyed).map { time, category, nutrition in
        RecipeDetails(cookTime: time, recipeCategory: category, nutrition: nutrition)
    }

    static let fields = zip(word, word, list, steps, image, details, keyed).map {
        title, keywords, ingredients, steps, image, details, other in
        RecipeFields(
            title: title, keywords: keywords, ingredients: ingredients, steps: steps, details: details,
            received: ReceivedProperties(other: other), image: image)
    }

    /// An edit of a list: kind (0 insert, 1 remove, 2 change), place and word; applied in order.
    static let listEdits = zip(Gen.int(in: 0...2), Gen.int(in: 0...9), word).array(of: 0...4)
    /// An edit of the steps: as a list edit, with the section the step written gets.
    static let stepEdits = zip(Gen.int(in: 0...2), Gen.int(in: 0...9), word, Gen.int(in: 0...2)).array(of: 0...4)

    /// `fields` edited: each value field replaced by a random one half of the time, each list edited.
    static let edit = zip(Gen.int(in: 0...255), fields, listEdits, stepEdits, listEdits)

    static func apply(
        _ edit: (Int, RecipeFields, [(Int, Int, String)], [(Int, Int, String, Int)], [(Int, Int, String)]),
        to base: RecipeFields
    ) -> RecipeFields {
        let (mask, other, ingredientEdits, stepEdits, categoryEdits) = edit
        var result = base
        if mask & 1 != 0 { result.title = other.title }
        if mask & 2 != 0 { result.keywords = other.keywords }
        if mask & 4 != 0 { result.image = other.image }
        if mask & 8 != 0 { result.description = other.title }
        if mask & 16 != 0 { result.details.cookTime = other.details.cookTime }
        if mask & 32 != 0 { result.details.nutrition = other.details.nutrition }
        if mask & 64 != 0 { result.received.other = other.received.other }
        if mask & 128 != 0 { result.details.recipeCategory = apply(categoryEdits, to: base.details.recipeCategory) }
        result.ingredients = apply(ingredientEdits, to: base.ingredients)
        result.steps = apply(stepEdits.map { ($0.0, $0.1, Step(text: $0.2, section: sections[$0.3])) }, to: base.steps)
        return result
    }

    static func apply<Element>(_ edits: [(Int, Int, Element)], to list: [Element]) -> [Element] {
        var list = list
        for (kind, place, word) in edits {
            if kind == 0 || list.isEmpty {
                list.insert(word, at: place % (list.count + 1))
            } else if kind == 1 {
                list.remove(at: place % list.count)
            } else {
                list[place % list.count] = word
            }
        }
        return list
    }

    /// A base, mine and theirs: independent half of the time, otherwise both edited from the base.
    static let triple = zip(Gen.bool, fields, edit, edit, fields, fields).map { independent, base, m, t, mine, theirs in
        independent ? (base, mine, theirs) : (base, apply(m, to: base), apply(t, to: base))
    }
}

@Suite("Properties of the three-way merge")
struct MergePropertyTests {
    @Test("merging with one side unchanged gives the other side, without conflicts")
    func unchangedSide() async {
        await propertyCheck(count: 300, input: MergeGen.fields, MergeGen.fields) { base, other in
            #expect(RecipeMerge.merge(base: base, mine: base, theirs: other) == MergeResult(merged: other, conflicts: []))
            #expect(RecipeMerge.merge(base: base, mine: other, theirs: base) == MergeResult(merged: other, conflicts: []))
        }
    }

    @Test("merging the same change on both sides gives that change, without conflicts")
    func sameChange() async {
        await propertyCheck(count: 300, input: MergeGen.triple) { base, other, _ in
            #expect(RecipeMerge.merge(base: base, mine: other, theirs: other) == MergeResult(merged: other, conflicts: []))
        }
    }

    @Test("no element or value either side added or changed disappears without a conflict naming it")
    func nothingLostSilently() async {
        await propertyCheck(count: 500, input: MergeGen.triple) { base, mine, theirs in
            let result = RecipeMerge.merge(base: base, mine: mine, theirs: theirs)
            for (side, isMine) in [(mine, true), (theirs, false)] {
                for list in RecipeList.allCases {
                    // The merged list holds mine in every conflict; theirs stands beside it in the conflict.
                    let besideIt = isMine ? [] : result.conflicts.filter { $0.field.list == list }
                        .flatMap(\.theirs.listElements)
                    let kept = list.elements(of: result.merged) + besideIt
                    for word in Set(list.elements(of: side)) {
                        let added = count(word, list.elements(of: side)) - count(word, list.elements(of: base))
                        #expect(count(word, kept) >= added, "\(list) lost \(word) from \(isMine ? "mine" : "theirs")")
                    }
                }
                let named = Set(result.conflicts.map(\.field))
                if side.title != base.title { #expect(result.merged.title == side.title || named.contains(.title)) }
                if side.keywords != base.keywords {
                    #expect(result.merged.keywords == side.keywords || named.contains(.keywords))
                }
                if side.image != base.image { #expect(result.merged.image == side.image || named.contains(.image)) }
                if side.details.cookTime != base.details.cookTime {
                    #expect(result.merged.details.cookTime == side.details.cookTime || named.contains(.cookTime))
                }
                for (key, value) in side.details.nutrition where base.details.nutrition[key] != value {
                    #expect(result.merged.details.nutrition[key] == value || named.contains(.nutrition(key)))
                }
                for (key, value) in side.received.other where base.received.other[key] != value {
                    #expect(result.merged.received.other[key] == value || named.contains(.property(key)))
                }
                for category in side.details.recipeCategory where !base.details.recipeCategory.contains(category) {
                    #expect(result.merged.details.recipeCategory.contains(category) || named.contains(.recipeCategory))
                }
            }
        }
    }

    @Test("a list conflict is named by where mine stands in the merged list, and no two share a name")
    func conflictNames() async {
        await propertyCheck(count: 500, input: MergeGen.triple) { base, mine, theirs in
            let result = RecipeMerge.merge(base: base, mine: mine, theirs: theirs)
            #expect(Set(result.conflicts.map(\.field)).count == result.conflicts.count)
            #expect(result.conflicts.map(\.field) == result.conflicts.map(\.field).sorted())
            for conflict in result.conflicts {
                guard let list = conflict.field.list, let number = conflict.field.number else { continue }
                let elements = list.elements(of: result.merged)
                let mineElements = conflict.mine.listElements
                #expect(number >= 1 && number - 1 + mineElements.count <= elements.count)
                guard number >= 1, number - 1 + mineElements.count <= elements.count else { continue }
                #expect(Array(elements[(number - 1)..<(number - 1 + mineElements.count)]) == mineElements)
            }
        }
    }

    /// The symmetry `RecipeMerge` documents: swapping mine and theirs swaps them in every conflict (list numbers
    /// aside), and resolving all to mine on one device gives what resolving all to theirs gives on the other when
    /// concurrent inserts are put in the mirrored order.
    @Test("the merge is symmetric except for which side is called mine and the order of concurrent inserts")
    func symmetry() async throws {
        await propertyCheck(count: 500, input: MergeGen.triple) { base, mine, theirs in
            let here = RecipeMerge.merge(base: base, mine: mine, theirs: theirs)
            let there = RecipeMerge.merge(base: base, mine: theirs, theirs: mine, concurrentInserts: .mineFirst)
            #expect(here.conflicts.map(withoutNumber) == there.conflicts.map { withoutNumber($0.swappingSides) })
            let (hereMine, thereTheirs) = (try here.resolving(to: .mine), try there.resolving(to: .theirs))
            let (hereTheirs, thereMine) = (try here.resolving(to: .theirs), try there.resolving(to: .mine))
            #expect(hereMine.merged == thereTheirs.merged)
            #expect(hereTheirs.merged == thereMine.merged)
            if !here.hasConflicts { #expect(here.merged == there.merged) }
        }
    }

    @Test("resolving everything leaves no conflict; to mine keeps the draft; one by one equals all at once")
    func resolution() async throws {
        await propertyCheck(count: 500, input: MergeGen.triple, Gen.bool) { triple, fromLast in
            let (base, mine, theirs) = triple
            let result = RecipeMerge.merge(base: base, mine: mine, theirs: theirs)
            let allMine = try result.resolving(to: .mine)
            let allTheirs = try result.resolving(to: .theirs)
            #expect(allMine == MergeResult(merged: result.merged, conflicts: []))
            #expect(allTheirs.conflicts.isEmpty)
            var stepwise = result
            while let next = fromLast ? stepwise.conflicts.last : stepwise.conflicts.first {
                let name = next.field.name
                stepwise = try stepwise.resolving(to: .theirs, only: [ConflictSelector(name: name)])
            }
            #expect(stepwise == allTheirs)
        }
    }

    @Test("conflicts read back from their stored text, and an edit that changes nothing settles nothing")
    func storedAndUnedited() async throws {
        await propertyCheck(count: 300, input: MergeGen.triple) { base, mine, theirs in
            let result = RecipeMerge.merge(base: base, mine: mine, theirs: theirs)
            let conflict = RecipeConflict.fields(result.conflicts)
            let read = try RecipeConflict(storedJSON: conflict.storedJSON)
            #expect(read == conflict)
            let left = conflict.remaining(afterEditFrom: result.merged, to: result.merged)
            #expect(left == (result.hasConflicts ? conflict : nil))
        }
    }
}

/// The conflict with its list number set to 0, for comparing conflicts of two merged lists.
private func withoutNumber(_ conflict: FieldConflict) -> FieldConflict {
    var copy = conflict
    if let list = conflict.field.list { copy.field = list.field(0) }
    return copy
}

private func count(_ word: String, _ list: [String]) -> Int {
    list.reduce(0) { $0 + ($1 == word ? 1 : 0) }
}
