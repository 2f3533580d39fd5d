import Testing
@testable import RecipesCommandLine

@Suite("Importing from the web: which answers are followed, and which address a recipe keeps")
struct PageImportDecisionTests {
    @Test("redirects are followed within the limit, never from https to http; other answers say what is wrong", arguments: [
        ("https://a.example/r", 200, nil, 0, PageRedirect.done),
        ("https://a.example/r", 301, "/s", 0, .follow("https://a.example/s")),
        ("https://a.example/r/", 302, "t?x=1", 2, .follow("https://a.example/r/t?x=1")),
        ("http://a.example/r", 308, "https://b.example/r", 4, .follow("https://b.example/r")),
        ("https://a.example/r", 307, "http://a.example/r", 0,
         .refuse("https://a.example/r redirects to http://a.example/r, from https to plain http; recipes does not follow it")),
        ("https://a.example/r", 303, "ftp://a.example/r", 0,
         .refuse("https://a.example/r redirects to ftp://a.example/r, which is not an http(s) address; recipes does not follow it")),
        ("https://a.example/r", 301, "/s", 5, .refuse("https://a.example/r redirects more than 5 times; check the address")),
        ("https://a.example/r", 301, nil, 0, .refuse("https://a.example/r answered 301, a redirect without an address; check the address")),
        ("https://a.example/r", 404, nil, 0, .refuse("the site has no such page (404); check the address")),
        ("https://a.example/r", 403, nil, 0,
         .refuse("the site refused the page (403); it may need a login, so save the page from a browser and import the file")),
        ("https://a.example/r", 503, nil, 0, .refuse("the site failed to answer (503); try again later")),
        ("https://a.example/r", 304, nil, 0, .refuse("the site answered 304 instead of the page; check the address")),
    ] as [(String, Int, String?, Int, PageRedirect)])
    func redirects(_ url: String, _ status: Int, _ location: String?, _ hops: Int, _ expected: PageRedirect) {
        #expect(PageRedirect.next(from: url, status: status, location: location, hops: hops) == expected)
    }

    @Test("a recipe's url: --url, the canonical link, its own url, the address fetched; several recipes keep their own or a place on the page", arguments: [
        ("x", "c", "r", "f", 0, 1, "x"),
        (nil, "c", "r", "f", 0, 1, "c"),
        (nil, nil, "r", "f", 0, 1, "r"),
        (nil, nil, "", "f", 0, 1, "f"),
        (nil, nil, "", nil, 0, 1, ""),
        (nil, "https://p.example/a#top", "", "f", 1, 2, "https://p.example/a#recipe-2"),
        (nil, "c", "https://p.example/b", "f", 0, 2, "https://p.example/b"),
        (nil, nil, "", nil, 0, 2, ""),
    ] as [(String?, String?, String, String?, Int, Int, String)])
    func addresses(_ explicit: String?, _ canonical: String?, _ own: String, _ fetched: String?, _ index: Int, _ count: Int, _ expected: String) {
        #expect(RecipeImport.address(explicit: explicit, canonical: canonical, recipeURL: own, fetched: fetched, index: index, count: count) == expected)
    }
}
