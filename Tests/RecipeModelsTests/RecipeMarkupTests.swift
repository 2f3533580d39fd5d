import Foundation
import Testing
@testable import RecipeModels

@Suite("Reading schema.org recipes from a page's microdata and RDFa")
struct RecipeMarkupTests {
    @Test("an older blog's microdata (http: itemtype, unclosed <li>s, old `ingredients`, nested HowToSteps) reads every field")
    func microdataBlogPage() throws {
        let recipes = try RecipeJSONLD.recipes(inFile: try recipeFixture("microdata-blog-page.html"))
        try #require(recipes.count == 1)
        let recipe = recipes[0]
        #expect(recipe.content == RecipeContent(
            title: "Nana’s Buttermilk Scones",
            description: "Light, tall scones – best still warm, with jam & clotted cream.",
            recipeYield: "8 scones", keywords: "scones,teatime,baking",
            ingredients: ["450 g self-raising flour", "1 tsp baking powder", "75 g cold butter, cubed", "300 ml buttermilk"],
            steps: [
                "Heat the oven to 220°C.", "Rub the butter into the flour and baking powder until it looks like breadcrumbs.",
                "Stir in the buttermilk, pat out 3 cm thick and cut 8 rounds.", "Bake 12 minutes, until risen & golden.",
            ],
            details: RecipeDetails(
                prepTime: "PT15M", cookTime: "PT12M", totalTime: "27 mins", recipeCategory: ["Baking"],
                recipeCuisine: ["British"], author: "Margaret & Ann Doyle",
                nutrition: ["calories": "240 kcal", "fatContent": "9 g"],
                suitableForDiet: ["https://schema.org/VegetarianDiet"])))
        // The recipe's own image, not its step's; the page's and the comment's names and authors stay theirs.
        #expect(recipe.image == .remote(url: "https://crumbdiaries.example.com/wp-content/uploads/2013/04/scones-300x200.jpg"))
        // What is not a field is kept, as the JSON-LD it stands for.
        #expect(recipe.received.other.keys.sorted() == ["aggregateRating"])
        let rating = try #require(recipe.received.other["aggregateRating"])
        #expect(rating == #"{"@type":"AggregateRating","ratingValue":"4.8","reviewCount":"23"}"#)
    }

    @Test("an RDFa page (vocab + typeof, content first, HowToSections, a typed <img>) reads every field")
    func rdfaPage() throws {
        let recipes = try RecipeJSONLD.recipes(inFile: try recipeFixture("rdfa-recipe-page.html"))
        try #require(recipes.count == 1)
        let recipe = recipes[0]
        #expect(recipe.content == RecipeContent(
            title: "Gratin dauphinois", description: "Le vrai gratin : sans fromage, cuit lentement dans la crème.",
            recipeYield: "6 personnes", keywords: "pommes de terre,crème,gratin",
            ingredients: ["1,2 kg de pommes de terre", "50 cl de crème entière", "1 gousse d’ail", "Sel, poivre, muscade"],
            steps: [
                Step(text: "Éplucher et couper en rondelles de 3 mm.", section: "Les pommes de terre"),
                Step(text: "Ne pas les laver.", section: "Les pommes de terre"),
                Step(text: "Frotter le plat avec l’ail, y ranger les rondelles.", section: "Cuisson"),
                Step(text: "Couvrir de crème et cuire 1 h 15 à 150°C.", section: "Cuisson"),
            ],
            details: RecipeDetails(
                prepTime: "PT20M", cookTime: "PT1H15M", recipeCategory: ["Accompagnement"], recipeCuisine: ["Française"],
                author: "Jeanne Brochier", nutrition: ["calories": "410 kcal"])))
        #expect(recipe.image == .remote(url: "https://cuisine-lyon.example.fr/sites/default/files/styles/large/public/gratin.jpg?itok=Xy12"))
        #expect(recipe.received.other["datePublished"] == #""2019-11-02T10:00:00+01:00""#)
        #expect(recipe.received.other["@id"] == #""/recettes/gratin-dauphinois""#)
    }

    @Test("a property's value by its element, as the microdata spec says, content first", arguments: [
        (#"<meta itemprop="name" content="Meta &amp; content">"#, "Meta & content"),
        (#"<span itemprop="name" content="From content">Shown text</span>"#, "From content"),
        (#"<time itemprop="name" datetime="PT5M">five minutes</time>"#, "PT5M"),
        (#"<time itemprop="name">five minutes</time>"#, "five minutes"),
        (#"<a itemprop="name" href="https://x.example/a?b=1&amp;c=2">link text</a>"#, "https://x.example/a?b=1&c=2"),
        (#"<link itemprop="name" href="/relative">"#, "/relative"),
        (#"<img itemprop="name" src="https://x.example/i.jpg" alt="alt text">"#, "https://x.example/i.jpg"),
        (#"<img itemprop="name" src="data:image/gif;base64,R0lGOD" data-src="https://x.example/lazy.jpg">"#, "https://x.example/lazy.jpg"),
        (#"<video itemprop="name" src="clip.mp4"></video>"#, "clip.mp4"),
        (#"<data itemprop="name" value="42">forty-two</data>"#, "42"),
        (#"<meter itemprop="name" value="0.5">half</meter>"#, "0.5"),
        (#"<object itemprop="name" data="movie.swf"></object>"#, "movie.swf"),
        ("<div itemprop=\"name\">  Two\n   words <b>and</b>\tmore  </div>", "Two words and more"),
        (#"<div itemprop="name">Caf&eacute; &#233;t&#xE9; &frac12; &lt;b&gt;</div>"#, "Café été ½ <b>"),
    ])
    func values(_ markup: String, _ expected: String) throws {
        let page = #"<div itemscope itemtype="https://schema.org/Recipe">"# + markup + "</div>"
        let recipes = try RecipeJSONLD.recipes(inFile: Data(page.utf8))
        #expect(recipes.map(\.content.title) == [expected])
    }

    @Test("which itemtypes and typeofs are schema.org's Recipe", arguments: [
        ("https://schema.org/Recipe", true), ("http://schema.org/Recipe", true), ("https://www.schema.org/Recipe", true),
        ("Recipe", true), ("schema:Recipe", true), ("http://data-vocabulary.org/Recipe", false),
        ("https://schema.org/RecipeCollection", false), ("https://schema.org/HowTo", false),
        ("https://example.com/schema.org/Recipe", false),
    ])
    func recipeTypes(_ written: String, _ isRecipe: Bool) {
        #expect(RecipeMicrodata.isSchemaType(written, "Recipe") == isRecipe)
    }

    @Test("an itemtype list with Recipe in it is a recipe; two recipes on one page are both read, in order")
    func typeListsAndTwoRecipes() throws {
        let page = """
            <div itemscope itemtype="https://schema.org/HowTo https://schema.org/Recipe"><h2 itemprop="name">First</h2></div>
            <section itemscope itemtype="https://schema.org/Recipe"><h2 itemprop="https://schema.org/name">Second</h2>
              <p itemprop="recipeIngredient">1 egg</p></section>
            """
        let recipes = try RecipeJSONLD.recipes(inFile: Data(page.utf8))
        #expect(recipes.map(\.content.title) == ["First", "Second"])
        #expect(recipes[1].content.ingredients == ["1 egg"])
        #expect(recipes[0].received.other["@type"] == nil, "@type is the protocol's")
    }

    @Test("a nested item's properties are its own: an author's name, a step's image and a review's text do not leak")
    func nestedItemsKeepTheirProperties() throws {
        let page = """
            <div itemscope itemtype="https://schema.org/Recipe">
              <div itemprop="author" itemscope itemtype="https://schema.org/Person"><span itemprop="name">Ann</span>
                <img itemprop="image" src="https://x.example/ann.jpg"></div>
              <div itemprop="review" itemscope itemtype="https://schema.org/Review">
                <span itemprop="name">Great</span><span itemprop="recipeIngredient">not an ingredient</span></div>
              <h1 itemprop="name">Flapjacks</h1>
              <span itemprop="recipeIngredient">oats</span>
              <div itemprop="recipeInstructions"><p>Melt.</p><p>Stir.</p><br>Bake.</div>
            </div>
            """
        let recipe = try #require(try RecipeJSONLD.recipes(inFile: Data(page.utf8)).first)
        #expect(recipe.content.title == "Flapjacks")
        #expect(recipe.content.details.author == "Ann")
        #expect(recipe.image == nil)
        #expect(recipe.content.ingredients == ["oats"])
        #expect(recipe.content.steps == ["Melt.", "Stir.", "Bake."], "a block of text is a step per line")
    }

    @Test("a Person or a step written as its bare text reads that text")
    func bareItems() throws {
        let page = """
            <div itemscope itemtype="https://schema.org/Recipe"><b itemprop="name">Tea</b>
            <span itemprop="author" itemscope itemtype="https://schema.org/Person">Grace   Hopper</span>
            <ol><li itemprop="recipeInstructions" itemscope itemtype="https://schema.org/HowToStep">Boil the <em>water</em>.</ol></div>
            """
        let recipe = try #require(try RecipeJSONLD.recipes(inFile: Data(page.utf8)).first)
        #expect(recipe.content.details.author == "Grace Hopper")
        #expect(recipe.content.steps == ["Boil the water."])
    }

    @Test("JSON-LD wins when a page has both; a malformed JSON-LD script does not hide a microdata recipe")
    func jsonLDFirst() throws {
        let both = """
            <script type="application/ld+json">{"@type":"Recipe","name":"From JSON-LD"}</script>
            <div itemscope itemtype="https://schema.org/Recipe"><span itemprop="name">From microdata</span></div>
            """
        #expect(try RecipeJSONLD.recipes(inFile: Data(both.utf8)).map(\.content.title) == ["From JSON-LD"])
        let broken = """
            <script type="application/ld+json">{"@type":"BreadcrumbList",</script>
            <div itemscope itemtype="https://schema.org/Recipe"><span itemprop="name">From microdata</span></div>
            """
        #expect(try RecipeJSONLD.recipes(inFile: Data(broken.utf8)).map(\.content.title) == ["From microdata"])
    }

    @Test("a page with no recipe says what was looked for; a broken JSON-LD script is told when nothing else is there")
    func noRecipe() throws {
        let cases: [(String, String)] = [
            ("<html><body><p>Just a post.</p></body></html>",
             "no schema.org Recipe found: looked for JSON-LD <script type=application/ld+json>, microdata itemtype=https://schema.org/Recipe and RDFa typeof=Recipe"),
            (#"<div itemscope itemtype="https://schema.org/Article"><span itemprop="name">News</span></div>"#,
             "no schema.org Recipe found"),
            (#"<div vocab="https://schema.org/" typeof="Person"><span property="name">Ann</span></div>"#, "no schema.org Recipe found"),
            (#"<script type="application/ld+json">{"@type":</script><p>x</p>"#, "JSON-LD script 1 of 1: malformed JSON"),
            (#"<div itemscope itemtype="https://schema.org/Recipe"><p itemprop="recipeIngredient">1 egg</p></div>"#,
             "microdata: the recipe: it has no name"),
        ]
        for (page, message) in cases {
            do {
                _ = try RecipeJSONLD.recipes(inFile: Data(page.utf8))
                Issue.record("no error for \(page)")
            } catch {
                #expect(error.message.hasPrefix(message), "\(error.message)")
            }
        }
    }

    @Test("markup that a script, a style or a comment holds is not read; a page nested 20,000 deep is read")
    func notMarkupAndDeepPages() throws {
        let page = """
            <div itemscope itemtype="https://schema.org/Recipe">
            <script>document.write('<span itemprop="name">from a script</span>')</script>
            <style>/* <span itemprop="name">from a style</span> */</style>
            <!-- <span itemprop="name">from a comment</span> -->
            <span itemprop="name">Real</span></div>
            """
        #expect(try RecipeJSONLD.recipes(inFile: Data(page.utf8)).map(\.content.title) == ["Real"])
        let deep = #"<div itemscope itemtype="https://schema.org/Recipe">"# + String(repeating: "<div>", count: 20_000)
            + #"<span itemprop="name">Deep</span>"# + String(repeating: "</div>", count: 20_000) + "</div>"
        #expect(try RecipeJSONLD.recipes(inFile: Data(deep.utf8)).map(\.content.title) == ["Deep"])
    }

    @Test("the tree closes what a browser closes: an open <li> by the next, an end tag every element opened inside it")
    func treeNesting() {
        let tree = HTMLTree(html: "<ul><li>one<li>two <b>bold</ul><p>after<div>block</div><img src=x alt='a>b'>tail")
        let names = tree.elements.map(\.name)
        #expect(names == ["", "ul", "li", "li", "b", "p", "div", "img"])
        #expect(tree.childElements(of: 1) == [2, 3], "both items are in the list")
        #expect(tree.childElements(of: 0) == [1, 5, 6, 7], "the <p> is closed by the <div>; after </ul> nothing is open")
        #expect(tree.elements[7].attributes["alt"] == "a>b")
        #expect(tree.text(of: 0) == "one\ntwo bold\nafter\nblock\ntail")
    }
}
