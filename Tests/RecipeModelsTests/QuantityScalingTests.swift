import Testing
@testable import RecipeModels

@Suite("Scaling quantities: the number an ingredient starts with, and the yield's")
struct QuantityScalingTests {
    /// Real ingredient lines, as recipe sites and cookbooks write them, doubled (and some halved or by 1.5).
    static let lines: [(String, Double, String)] = [
        // Metric
        ("200 g plain flour", 2, "400 g plain flour"),
        ("400g tin chopped tomatoes", 2, "800g tin chopped tomatoes"),
        ("1.5 kg potatoes, peeled", 2, "3 kg potatoes, peeled"),
        ("1,5 kg Kartoffeln", 2, "3 kg Kartoffeln"),
        ("0,5 l Milch", 3, "1,5 l Milch"),
        ("250 ml double cream", 1.5, "375 ml double cream"),
        ("125 g butter, softened", 1.5, "188 g butter, softened"),
        ("75 g caster sugar", 0.5, "38 g caster sugar"),
        ("2 tbsp olive oil", 2, "4 tbsp olive oil"),
        ("1 tsp ground cumin", 3, "3 tsp ground cumin"),
        ("1 litre chicken stock", 0.5, "0.5 litre chicken stock"),
        ("3 garlic cloves, crushed", 2, "6 garlic cloves, crushed"),
        ("1,000 g strong white flour", 0.5, "500 g strong white flour"),
        // US
        ("2 cups all-purpose flour", 2, "4 cups all-purpose flour"),
        ("1/2 cup sugar", 2, "1 cup sugar"),
        ("3/4 cup milk", 2, "1 1/2 cups milk"),
        ("1 1/2 cups chicken broth", 2, "3 cups chicken broth"),
        ("2 1/4 teaspoons active dry yeast", 2, "4 1/2 teaspoons active dry yeast"),
        ("1/3 cup vegetable oil", 2, "2/3 cup vegetable oil"),
        ("1/4 teaspoon salt", 0.5, "1/8 teaspoon salt"),
        ("1 (14.5 ounce) can diced tomatoes", 2, "2 (14.5 ounce) cans diced tomatoes"),
        ("8 ounces cream cheese, softened", 1.5, "12 ounces cream cheese, softened"),
        ("1 pound ground beef", 2, "2 pounds ground beef"),
        ("2 large eggs", 1.5, "3 large eggs"),
        ("1 stick (1/2 cup) unsalted butter", 2, "2 sticks (1/2 cup) unsalted butter"),
        ("1 1⁄2 cups flour", 2, "3 cups flour"),
        // Vulgar fractions and mixed numbers
        ("½ tsp salt", 2, "1 tsp salt"),
        ("¼ cup maple syrup", 3, "¾ cup maple syrup"),
        ("1½ lemons, juiced", 2, "3 lemons, juiced"),
        ("1 ½ tbsp honey", 2, "3 tbsp honey"),
        ("⅓ cup cocoa powder", 2, "⅔ cup cocoa powder"),
        ("¾ cup buttermilk", 2, "1½ cups buttermilk"),
        // Ranges
        ("2-3 tbsp water", 2, "4-6 tbsp water"),
        ("3–4 ripe bananas", 2, "6–8 ripe bananas"),
        ("1 to 2 red chillies", 2, "2 to 4 red chillies"),
        ("1/2-1 tsp chilli flakes", 2, "1-2 tsp chilli flakes"),
        ("10 - 12 cherry tomatoes", 0.5, "5 - 6 cherry tomatoes"),
        // A quantity between two measures is written as the nearest (of two as near, the larger)
        ("1/3 cup rice", 1.5, "1/2 cup rice"),
        ("1/8 tsp cayenne", 1.5, "1/4 tsp cayenne"),
        // Text without a quantity at its start is left as written
        ("Salt and pepper, to taste", 2, "Salt and pepper, to taste"),
        ("A pinch of saffron", 2, "A pinch of saffron"),
        ("Juice of 1 lemon", 2, "Juice of 1 lemon"),
        ("Fresh basil leaves, to serve", 2, "Fresh basil leaves, to serve"),
        ("Olive oil for frying", 2, "Olive oil for frying"),
        ("", 2, ""),
        ("V8 juice", 2, "V8 juice"),
    ]

    @Test("each real line scales its leading quantity and keeps the rest as written", arguments: lines)
    func scalesIngredient(_ line: String, _ factor: Double, _ expected: String) {
        #expect(QuantityScaling.scale(ingredient: line, by: factor) == expected)
    }

    @Test("scaled as cooks write it: fractions a spoon or cup measures, mixed numbers, the unit or noun in the singular for one or less", arguments: [
        ("1 onion", 0.5, "½ onion"),
        ("3 cloves garlic", 0.5, "1½ cloves garlic"),
        ("2 eggs", 0.5, "1 egg"),
        ("1 egg, beaten", 3, "3 eggs, beaten"),
        ("2 egg yolks", 0.5, "1 egg yolk"),
        ("10 cherry tomatoes", 0.1, "1 cherry tomato"),
        ("1 egg white", 2, "2 egg whites"),
        ("1 lemon juice", 2, "2 lemon juice"), // a thing's name before another word: not what is counted
        ("1/4 cup crumbled feta", 0.5, "1/8 cup crumbled feta"),
        ("1 1/2 cups passata", 0.5, "3/4 cup passata"),
        ("1 cup flour", 0.33, "⅓ cup flour"),
        ("1 cup flour", 0.4, "⅜ cup flour"),
        ("2 cups milk", 0.375, "¾ cup milk"),
        ("1 tablespoon honey", 3, "3 tablespoons honey"),
        ("3 Tablespoons Butter", 1.0 / 3, "1 Tablespoon Butter"),
        ("4 large potatoes, peeled", 0.25, "1 large potato, peeled"),
        ("2 bay leaves", 0.5, "1 bay leaves"), // "bay" is no unit nor thing the table knows: left as written
        ("1 loaf bread", 2, "2 loaves bread"),
        ("12 eggs", 1.1, "13 eggs"), // from 10 up, to the nearest half
        ("12 eggs", 1.125, "13½ eggs"),
        ("1/4 tsp salt", 0.1, "0.03 tsp salt"), // less than a sixteenth: no spoon measures it
        ("1 kg flour", 0.333, "0.33 kg flour"),
        ("1.5 cups stock", 0.5, "0.75 cup stock"), // a decimal stays one
        ("500 ml milk", 0.33, "165 ml milk"),
        ("5 g yeast", 0.33, "1.7 g yeast"),
        ("2 (400 g) tins tomatoes", 0.5, "1 (400 g) tin tomatoes"),
    ] as [(String, Double, String)])
    func cooksWriting(_ line: String, _ factor: Double, _ expected: String) {
        #expect(QuantityScaling.scale(ingredient: line, by: factor) == expected)
    }

    @Test("the table holds at least 40 lines of every kind")
    func tableSize() {
        #expect(Self.lines.count >= 40)
    }

    @Test("the yield's first number scales wherever it stands, and is the servings scaling starts from", arguments: [
        ("4 servings", 2.0, "8 servings", 4.0), ("Serves 4-6", 2, "Serves 8-12", 4), ("Makes 12 cookies", 0.5, "Makes 6 cookies", 12),
        ("1 loaf", 2, "2 loaves", 1), ("2 (9-inch) pies", 1.5, "3 (9-inch) pies", 2),
    ])
    func scalesYield(_ yield: String, _ factor: Double, _ expected: String, _ servings: Double) {
        #expect(QuantityScaling.scale(yield: yield, by: factor) == expected)
        #expect(QuantityScaling.servings(in: yield) == servings)
    }

    @Test("servings are divided by the yield's number; a yield without one, or a number not above 0, is refused")
    func factors() throws {
        #expect(try QuantityScaling.factor(.servings(8), yield: "4 servings") == 2)
        #expect(try QuantityScaling.factor(.servings(3), yield: "Serves 6") == 0.5)
        #expect(try QuantityScaling.factor(.factor(1.5), yield: "") == 1.5)
        #expect(throws: ScalingError(message: "the recipe has the yield \"a big pot\", with no number to scale from; use --scale (e.g. --scale 2), or set its yield")) {
            try QuantityScaling.factor(.servings(4), yield: "a big pot")
        }
        #expect(throws: ScalingError(message: "the recipe has no yield to scale from; use --scale (e.g. --scale 2), or set its yield")) {
            try QuantityScaling.factor(.servings(4), yield: "")
        }
        #expect(throws: ScalingError(message: "a scale must be a number above 0, e.g. 1.5 or 0.5")) {
            try QuantityScaling.factor(.factor(0), yield: "4")
        }
    }

    @Test("a factor beyond 0.001 to 1000 times is refused, asked for directly or as servings, saying what fits")
    func boundedFactors() throws {
        #expect(try QuantityScaling.factor(.factor(1000), yield: "") == 1000)
        #expect(try QuantityScaling.factor(.factor(0.001), yield: "") == 0.001)
        #expect(try QuantityScaling.factor(.servings(4000), yield: "4 servings") == 1000)
        #expect(throws: ScalingError(message: "a scale of 1e+20 is too large; scale by 0.001 to 1000, e.g. 1.5 or 0.5")) {
            try QuantityScaling.factor(.factor(1e20), yield: "4")
        }
        #expect(throws: ScalingError(message: "a scale of 0.0001 is too small; scale by 0.001 to 1000, e.g. 1.5 or 0.5")) {
            try QuantityScaling.factor(.factor(0.0001), yield: "4")
        }
        #expect(throws: ScalingError(message: "1e+308 servings from the yield \"4 servings\" is too large a scale; ask for 0.004 to 4000 servings")) {
            try QuantityScaling.factor(.servings(1e308), yield: "4 servings")
        }
        #expect(throws: ScalingError(message: "4001 servings from the yield \"4 servings\" is too large a scale; ask for 0.004 to 4000 servings")) {
            try QuantityScaling.factor(.servings(4001), yield: "4 servings")
        }
    }

    @Test("any scaled number is written, however large: the largest quantity read times the largest factor, and beyond")
    func largeResults() {
        #expect(QuantityScaling.scale(ingredient: "999999999,999 g flour", by: 1000) == "999999999999000 g flour")
        #expect(QuantityScaling.decimal(1e20) == "100000000000000000000")
        #expect(QuantityScaling.decimal(9.3e18) == "9300000000000000000")
    }

    @Test("a recipe's content scaled: ingredients and yield, the rest untouched")
    func scalesContent() {
        let content = RecipeContent(title: "Pancakes", recipeYield: "4 servings", ingredients: ["200 g flour", "2 eggs", "Salt"], steps: ["Mix 2 eggs."])
        let scaled = QuantityScaling.scaled(content, by: 1.5)
        #expect(scaled.ingredients == ["300 g flour", "3 eggs", "Salt"])
        #expect(scaled.recipeYield == "6 servings")
        #expect(scaled.steps == content.steps)
        #expect(scaled.title == content.title)
    }
}
