import Foundation
import Testing
@testable import RecipeModels

@Suite("The recipe card: what `recipes edit <id>` opens in the editor")
struct RecipeCardTests {
    static let soup = RecipeContent(
        title: "Tomato soup", description: "A warm soup.\n\nFor cold evenings.", recipeYield: "4 servings",
        keywords: "soup,vegan", ingredients: ["800 g canned tomatoes", "1 onion"],
        steps: ["Chop the onion.", "Simmer for 20 minutes."])

    @Test("a card reads like a recipe card")
    func layout() {
        #expect(RecipeCard.text(of: Self.soup, comments: ["Recipe 3", ""]) == """
            # Recipe 3
            #

            Title: Tomato soup
            Yield: 4 servings
            Keywords: soup, vegan
            Prep time:
            Cook time:
            Total time:
            Category:
            Cuisine:
            Author:
            URL:
            Tools:
            Diets:

            Description:
            A warm soup.

            For cold evenings.

            Nutrition:

            Ingredients:
            - 800 g canned tomatoes
            - 1 onion

            Steps:
            1. Chop the onion.

            2. Simmer for 20 minutes.

            """)
    }

    @Test("reading back the card of any content gives exactly that content")
    func exactRoundTrips() throws {
        let awkward = [
            "", " ", "  padded  ", "\"quoted\" salt", "# not a comment", "Title: not a field", "- dash", "-", "2. not a number",
            "tab\there", "two\nlines", "blank\n\nline", "trailing\n", "\nleading", "emoji 🍅 and é", "back\\slash",
            "Steps:", "1)", "\u{7}bell", "crlf\r\nline", "\u{A0}nbsp", "ends with \\", "Keywords:x",
        ]
        var contents: [RecipeContent] = [Self.soup, RecipeContent(title: "Only a title")]
        for text in awkward {
            contents.append(RecipeContent(
                title: text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? "t" : text, description: text,
                recipeYield: text, keywords: text, ingredients: [text, "plain", text],
                steps: [Step(text: text), "plain", Step(text: text, section: text)]))
        }
        contents.append(RecipeContent(title: "k", keywords: "a, b", ingredients: awkward, steps: awkward.map { Step(text: $0) }))
        contents.append(RecipeContent(title: "d", description: "  indented\n# hash\nStep: two\n\"q\"\nend  "))
        for content in contents {
            let card = RecipeCard.text(of: content, comments: ["a comment"])
            #expect(try RecipeCard.parse(card) == content, "card:\n\(card)")
        }
    }

    @Test("what a person types is read leniently: any case and order, no bullets or numbers, wrapped steps, CRLF")
    func lenientReading() throws {
        let typed = "title:   Pancakes  \r\nINGREDIENTS:\r\n  flour\r\n\r\n- milk\r\nsteps: Mix.\r\n\r\n3) Fry\r\n  in butter.\r\n"
        #expect(try RecipeCard.parse(typed) == RecipeContent(
            title: "Pancakes", ingredients: ["flour", "milk"], steps: ["Mix.", "Fry in butter."]))
        #expect(try RecipeCard.parse("Title: x\nKeywords: b ,, a ,\n")?.keywords == "b,a")
        #expect(try RecipeCard.parse("# only comments\n\n#\n") == nil)
        #expect(try RecipeCard.parse("") == nil)
    }

    @Test("a mistake names its line and what to do")
    func errors() {
        let cases: [(String, Int?, String)] = [
            ("Yield: 4\n", nil, "there is no \"Title:\" line"),
            ("Soup\nTitle: x\n", 1, "text before the first field"),
            ("Title: x\nTitle: y\n", 2, "a second Title: (the first is on line 1)"),
            ("Title:\n", 1, "the title is empty"),
            ("Title: x\nServes: 4\n", 2, "unknown field \"Serves\""),
            ("Title: x\nmore title\n", 2, "Title: takes one line"),
            ("Title: x\nIngredients:\n- \"unclosed\n", 3, "text starting with \" must be one JSON string"),
            ("Title: x\nSteps:\n\"a\"\nb\n", 3, "a step that starts with \" is one JSON string"),
            ("Title: x\nDescription:\n\"a\"\nb\n", 3, "a description that starts with \""),
            ("Title: a\u{0}b\n", 1, "NUL"),
        ]
        for (text, line, message) in cases {
            do {
                _ = try RecipeCard.parse(text)
                Issue.record("no error for \(text.debugDescription)")
            } catch {
                #expect(error.line == line && error.message.contains(message), "\(text.debugDescription): \(error)")
            }
        }
    }
}
