import RecipeModels
import Testing

@Suite("naming a recipe by its title: exact wins over starts, case and accents aside, several refused")
struct TitleMatchTests {
    static let titles: [(id: Int64, title: String)] = [
        (1, "Crème brûlée"), (2, "Lasagne al forno"), (3, "Pie"), (4, "Pie crust"), (5, "Pancakes"), (6, "pancakes"),
        (7, "Beef stew"), (8, "  Tomato   soup "),
    ]

    @Test("each name finds what the table says", arguments: [
        ("Crème brûlée", TitleMatch.one(1)),   // exact
        ("creme brulee", .one(1)),             // case and accents aside
        ("CRÈME", .one(1)),                    // a start, in capitals
        ("lasagne", .one(2)),                  // the only title starting so
        ("Lasagne  al", .one(2)),              // blanks as one space
        ("pie", .one(3)),                      // an exact title wins over "Pie crust"
        ("pie c", .one(4)),
        ("p", .several([3, 4, 5, 6])),         // several starts
        ("pancakes", .several([5, 6])),        // two exact titles
        ("tomato soup", .one(8)),              // the title's own blanks folded too
        ("lasagna", .none),
        ("stew", .none),                       // a start of the title, not of a word in it
        ("   ", .none),
    ])
    func decide(name: String, expected: TitleMatch) {
        #expect(TitleMatch.decide(name, among: Self.titles) == expected, "\(name)")
    }

    @Test("how a word is read: digits are ids or uuid starts, hexadecimal with a letter both uuid and title, others titles",
          arguments: [
        ("2", RecipeReference.id(2)),
        ("1234", .idOrUUID(1234, prefix: "1234")),
        ("00000002", .uuid(prefix: "00000002")),
        ("beef", .uuidOrTitle(prefix: "beef", name: "beef")),
        ("3F2A-91", .uuidOrTitle(prefix: "3f2a91", name: "3F2A-91")),
        ("lasagne", .title("lasagne")),
        ("3f2", .title("3f2")),
        ("Crème brûlée", .title("Crème brûlée")),
        ("Lasagne al forno, the one with béchamel and more words than a uuid has", .title("Lasagne al forno, the one with béchamel and more words than a uuid has")),
    ])
    func reading(word: String, expected: RecipeReference) {
        #expect(RecipeReference(word) == expected)
    }

    @Test("a word that cannot name a recipe reads as none", arguments: ["", "  ", "0", "012", "-x", "--scale"])
    func unreadable(word: String) {
        #expect(RecipeReference(word) == nil)
    }
}
