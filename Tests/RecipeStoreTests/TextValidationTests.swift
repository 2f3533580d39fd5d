import Foundation
import GRDB
import RecipesTestSupport
import Testing
@testable import RecipeModels
@testable import RecipeStore

@Suite("Text with NUL bytes or control characters is refused by the store, whichever command it comes from")
struct TextValidationTests {
    @Test("the rule: NUL and control characters are refused everywhere; tabs pass; line breaks only in prose fields")
    func rule() {
        for field in TextField.allCases {
            #expect(RecipeText.problem(in: "abc\0def", field: field) == .nulByte, "\(field)")
            #expect(RecipeText.problem(in: "\0\0\0", field: field) == .nulByte, "\(field)")
            #expect(RecipeText.problem(in: "red\u{1B}[31m", field: field) == .controlCharacter(0x1B), "\(field)")
            #expect(RecipeText.problem(in: "bell\u{07}", field: field) == .controlCharacter(0x07), "\(field)")
            #expect(RecipeText.problem(in: "del\u{7F}", field: field) == .controlCharacter(0x7F), "\(field)")
            #expect(RecipeText.problem(in: "csi\u{9B}2J", field: field) == .controlCharacter(0x9B), "\(field)")
            #expect(RecipeText.problem(in: "a\tb", field: field) == nil, "\(field)")
            #expect(RecipeText.problem(in: "Crème brûlée 🍮 שקשוקה", field: field) == nil, "\(field)")
            #expect(RecipeText.problem(in: "", field: field) == nil, "\(field)")
            for lineBreak in ["\n", "\r\n", "\r", "\u{2028}", "\u{2029}"] {
                let expected: TextProblem? = field.allowsLineBreaks ? nil : .lineBreak
                #expect(RecipeText.problem(in: "one\(lineBreak)two", field: field) == expected, "\(field)")
            }
        }
        #expect(TextField.allCases.filter(\.allowsLineBreaks) == [.description, .step])
        // The first problem is the one reported.
        #expect(RecipeText.problem(in: "a\nb\0", field: .title) == .lineBreak)
    }

    @Test("the messages say what is wrong and what to do")
    func messages() {
        func message(_ field: TextField, _ problem: TextProblem) -> String? {
            StoreError(.invalidText(field: field, problem: problem)).errorDescription
        }
        #expect(message(.title, .nulByte) == "the title contains a NUL byte (\\0), which recipes cannot store; remove it and try again")
        #expect(message(.keywords, .controlCharacter(0x1B))
            == "the keywords contain the control character U+001B, which recipes does not store; remove it and try again")
        #expect(message(.step, .controlCharacter(0x9B))
            == "the step contains the control character U+009B, which recipes does not store; remove it and try again")
        #expect(message(.ingredient, .lineBreak)
            == "the ingredient contains a line break; an ingredient is one line: add each line as an ingredient of its own")
        #expect(message(.title, .lineBreak) == "the title contains a line break; the title is one line: join its lines")
        #expect(message(.keywords, .lineBreak) == "the keywords contain a line break; keywords are one line: separate them with commas")
    }

    @Test("`new abc<NUL>def` is refused and creates nothing (SQLite would have stored `abc`)")
    func createRefusesNul() throws {
        let dir = TemporaryDirectory()
        let store = try RecipeStore(home: dir.home)
        #expect(throws: StoreError(.invalidText(field: .title, problem: .nulByte))) {
            try store.create(title: "abc\0def")
        }
        #expect(throws: StoreError(.invalidText(field: .title, problem: .nulByte))) { try store.create(title: "\0\0\0") }
        #expect(throws: StoreError(.invalidText(field: .title, problem: .controlCharacter(0x1B)))) {
            try store.create(title: "\u{1B}]0;owned\u{07}")
        }
        #expect(try store.recipes().isEmpty)
        #expect(try store.create(title: "  Soup\n").title == "Soup", "blanks and line breaks around a title are trimmed")
    }

    @Test("every text change with a NUL or control character is refused and changes nothing",
          arguments: [
              RecipeChange.title("abc\0def"), .description("x\0"), .yield("\0"), .keywords("a,\0b"),
              .addIngredient("1\0 egg"), .addStep("Stir\0."), .title("a\u{1B}[2Jb"), .description("\u{9B}31m"),
              .yield("4\u{7F}"), .keywords("soup\u{08}"), .addIngredient("salt\u{1B}"), .addStep("\u{1B}c"),
              .title("two\nlines"), .yield("4\nservings"), .keywords("a\nb"), .addIngredient("1 egg\n2 eggs"),
          ])
    func changesRefused(change: RecipeChange) throws {
        let dir = TemporaryDirectory()
        let store = try RecipeStore(home: dir.home)
        let id = try store.create(title: "Soup").id
        try store.apply(.addIngredient("water"), to: id)
        let before = try store.recipe(id: id)
        #expect {
            try store.apply(change, to: id)
        } throws: { error in
            guard case .invalidText? = (error as? StoreError)?.kind else { return false }
            return true
        }
        #expect(try store.recipe(id: id) == before)
    }

    @Test("line breaks are kept in a description and a step")
    func proseKeepsLineBreaks() throws {
        let dir = TemporaryDirectory()
        let store = try RecipeStore(home: dir.home)
        let id = try store.create(title: "Soup").id
        try store.apply(.description("Warm.\nFilling."), to: id)
        let recipe = try store.apply(.addStep("Chop.\r\nThen stir."), to: id)
        #expect(recipe.description == "Warm.\nFilling.")
        #expect(recipe.steps.map(\.text) == ["Chop.\r\nThen stir."])
    }

    @Test("a constraint of the schema that refuses an edit is reported in words, never in SQLite's")
    func constraintFailuresTranslated() throws {
        let dir = TemporaryDirectory()
        let store = try RecipeStore(home: dir.home)
        let uuid = UUID()
        let id = try store.create(title: "Soup", uuid: uuid).id
        // A real UNIQUE constraint: a second recipe with the same identity.
        #expect(throws: StoreError(.recipeExists(uuid: uuid.lowercasedString))) {
            try store.create(title: "Bread", uuid: uuid)
        }
        // Any other constraint the schema might add: a trigger stands in for it.
        try store.pool.write { db in
            try db.execute(sql: """
                CREATE TEMP TRIGGER refuse_step BEFORE INSERT ON steps
                BEGIN SELECT RAISE(ABORT, 'CHECK constraint failed: length(text) < 5'); END
                """)
        }
        let before = try store.recipe(id: id)
        #expect {
            try store.apply(.addStep("Simmer."), to: id)
        } throws: { error in
            let message = (error as? StoreError)?.errorDescription ?? ""
            return (error as? StoreError)?.kind == .changeRefused && !message.contains("constraint")
        }
        #expect(try store.recipe(id: id) == before)
    }

    @Test("constraint messages are mapped to what they mean; none is ever shown")
    func constraintMapping() {
        #expect(StoreError.refusedChange(constraintMessage: "CHECK constraint failed: length(title) > 0").kind == .emptyTitle)
        #expect(StoreError.refusedChange(constraintMessage: "UNIQUE constraint failed: recipes.uuid", uuid: "u").kind
            == .recipeExists(uuid: "u"))
        #expect(StoreError.refusedChange(constraintMessage: "NOT NULL constraint failed: steps.text").kind == .changeRefused)
        #expect(StoreError.refusedChange(constraintMessage: nil).kind == .changeRefused)
        let words = StoreError(.changeRefused).errorDescription ?? ""
        #expect(words.hasPrefix("the database refused the change as invalid, and nothing was changed"))
        #expect(!words.contains("constraint") && !words.contains("CHECK"))
    }
}
