import Testing
@testable import RecipesCommandLine

@Suite("REPL lines split into words like a shell")
struct LineSplitterTests {
    @Test("blanks separate words; runs of blanks count once", arguments: [
        ("new Tomato soup", ["new", "Tomato", "soup"]),
        ("  list  ", ["list"]),
        ("a\tb", ["a", "b"]),
    ])
    func blanks(line: String, words: [String]) throws {
        #expect(try LineSplitter.split(line) == words)
    }

    @Test("quotes group words and may be empty or adjacent to text")
    func quotes() throws {
        #expect(try LineSplitter.split(#"yield 1 "4 servings""#) == ["yield", "1", "4 servings"])
        #expect(try LineSplitter.split("title 2 'Mum''s stew'") == ["title", "2", "Mums stew"])
        #expect(try LineSplitter.split(#"description 1 """#) == ["description", "1", ""])
        #expect(try LineSplitter.split(#"a"b c"d"#) == ["ab cd"])
        #expect(try LineSplitter.split("x '' y") == ["x", "", "y"])
    }

    @Test("backslashes escape outside quotes and only \\\" and \\\\ inside double quotes")
    func backslashes() throws {
        #expect(try LineSplitter.split(#"image set 1 my\ photo.png"#) == ["image", "set", "1", "my photo.png"])
        #expect(try LineSplitter.split(#"say "a \"b\" \\ \n""#) == ["say", #"a "b" \ \n"#])
        #expect(try LineSplitter.split(#"'no \escapes'"#) == [#"no \escapes"#])
    }

    @Test("blank lines and lines starting with # have no words")
    func commentsAndBlanks() throws {
        #expect(try LineSplitter.split("") == [])
        #expect(try LineSplitter.split("   ") == [])
        #expect(try LineSplitter.split("# a comment 'with quote") == [])
        #expect(try LineSplitter.split("  # indented comment") == [])
        #expect(try LineSplitter.split("step add 1 use #2 pan") == ["step", "add", "1", "use", "#2", "pan"])
    }

    @Test("unbalanced quotes and a trailing backslash are errors with a message")
    func errors() {
        #expect(throws: LineSplitter.SplitError.unbalancedDoubleQuote) { try LineSplitter.split(#"title 1 "soup"#) }
        #expect(throws: LineSplitter.SplitError.unbalancedSingleQuote) { try LineSplitter.split("title 1 'soup") }
        #expect(throws: LineSplitter.SplitError.trailingBackslash) { try LineSplitter.split(#"title 1 soup\"#) }
        #expect(LineSplitter.SplitError.unbalancedDoubleQuote.message.contains("unbalanced double quote"))
    }
}
