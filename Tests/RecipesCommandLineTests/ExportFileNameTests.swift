import Foundation
@testable import RecipesCommandLine
import Testing

@Suite("The file names of `recipes export`: a title's letters with their accents folded, not dropped")
struct ExportFileNameTests {
    @Test("a title as a file name", arguments: [
        ("Crème brûlée", "creme-brulee"), ("Smørrebrød", "smørrebrød"), ("Tomato soup (quick!)", "tomato-soup-quick"),
        ("Pão de queijo", "pao-de-queijo"), ("拉面", "拉面"), ("***", "recipe"), ("", "recipe"),
        ("Jalapeño poppers & dip", "jalapeno-poppers-dip"),
    ])
    func slug(_ title: String, _ expected: String) {
        #expect(RecipeExport.slug(title) == expected)
    }
}
