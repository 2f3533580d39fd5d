import Testing
@testable import RecipeModels

@Suite("The ingredients a step uses: matched by their food words")
struct StepIngredientsTests {
    @Test("an ingredient's food words: no quantity, unit, preparation, size or serving words; several names split", arguments: [
        ("2 cloves garlic, minced", [["garlic"]]),
        ("1 (14.5 ounce) can diced tomatoes", [["tomato"]]),
        ("2 tbsp extra-virgin olive oil", [["olive", "oil"]]),
        ("Salt and freshly ground black pepper", [["salt"], ["black", "pepper"]]),
        ("Salt, to taste", [["salt"]]),
        ("1 cup walnuts, pecans, or almonds", [["walnut"], ["pecan"], ["almond"]]),
        ("Juice of 1 lemon", [["juice"], ["lemon"]]),
        ("1 tomato, cut into wedges", [["tomato"]]),
        ("500 g plain flour, plus extra for dusting", [["flour"]]),
        ("2 large free-range eggs, beaten", [["egg"]]),
        ("250 ml Crème Fraîche", [["creme", "fraiche"]]),
        ("250g unsalted butter, softened", [["butter"]]),
        ("1 bunch fresh coriander, roughly chopped", [["coriander"]]),
        ("For the sauce:", [["sauce"]]),
        ("2 chicken breasts, skin removed", [["chicken", "breast"]]),
    ] as [(String, [[String]])])
    func foodNames(_ line: String, _ expected: [[String]]) {
        #expect(StepIngredients.foodNames(of: line) == expected)
    }

    @Test("singular and plural share one form; case and accents are folded before", arguments: [
        ("tomatoes", "tomato"), ("tomato", "tomato"), ("berries", "berri"), ("berry", "berri"), ("cookies", "cooki"),
        ("cookie", "cooki"), ("leaves", "leaf"), ("leaf", "leaf"), ("peaches", "peach"), ("onions", "onion"),
        ("asparagus", "asparagus"), ("glass", "glass"), ("egg", "egg"), ("eggs", "egg"), ("chillies", "chilli"),
    ])
    func stems(_ word: String, _ expected: String) {
        #expect(StepIngredients.stem(word) == expected)
    }

    /// A lasagne's ingredients, with one section heading, and what each step uses (indices into them).
    static let lasagne = [
        "2 tbsp olive oil", "1 onion, finely chopped", "2 cloves garlic, minced", "500 g minced beef",
        "1 (400 g) tin chopped tomatoes", "1 tbsp sesame oil", "For the topping:", "250 ml Crème fraîche",
        "100 g Parmesan, grated", "Salt and pepper", "1 cup chicken stock", "4 chicken thighs",
    ]

    @Test("a step uses the ingredients it names, by the rules of heads and the words around them", arguments: [
        ("Heat the oil in a large pan.", [0, 5]),
        ("Fry the onions and the GARLIC for 5 minutes.", [1, 2]),
        ("Add the beef and brown it; pour in the tomatoes.", [3, 4]),
        ("Drizzle with the sesame oil.", [5]),
        ("Warm the olive oil.", [0]),
        ("Spread the creme fraiche over it and scatter the parmesan.", [7, 8]),
        ("Season with salt and pepper.", [9]),
        ("Pour in the chicken stock.", [10]),
        ("Brown the chicken on both sides.", [11]),
        ("Add the thighs.", [11]),
        ("Bake at 180 °C for 25 minutes.", []),
        ("Make the topping.", []),
    ] as [(String, [Int])])
    func uses(_ step: String, _ expected: [Int]) {
        #expect(StepIngredients.uses(ingredients: Self.lasagne, steps: [step]) == [expected])
    }

    @Test("each step gets its own list, in the steps' order")
    func everyStep() {
        let uses = StepIngredients.uses(
            ingredients: ["3 eggs", "1 cup sugar", "2 tbsp brown sugar"],
            steps: ["Beat the eggs with the sugar.", "Sprinkle the brown sugar.", "Bake."])
        #expect(uses == [[0, 1, 2], [2], []])
    }

    @Test("ingredient section headings start sections; the lines before the first are a section without a name")
    func sections() {
        #expect(IngredientSections(Self.lasagne).sections == [
            .init(name: "", ingredients: [0, 1, 2, 3, 4, 5]), .init(name: "For the topping", ingredients: [7, 8, 9, 10, 11]),
        ])
        #expect(IngredientSections(["Dough:", "500 g flour", "Filling:", "1 apple"]).sections == [
            .init(name: "Dough", ingredients: [1]), .init(name: "Filling", ingredients: [3]),
        ])
        #expect(IngredientSections(["2 eggs"]).sections == [.init(name: "", ingredients: [0])])
        #expect(!IngredientSections.isHeading("2 cups flour:"), "a line with a quantity is an ingredient")
        #expect(!IngredientSections.isHeading("Salt"))
        #expect(IngredientSections.isHeading("  For the sauce : "))
    }
}
