import Testing
@testable import RecipeModels

@Suite("Converting a recipe's measures: volumes to volumes, weights to weights, oven temperatures")
struct UnitConversionTests {
    @Test("an ingredient's quantity and unit in the other system, written as a cook writes it", arguments: [
        ("1 cup flour", UnitSystem.metric, "237 ml flour"),
        ("2 cups milk", .metric, "473 ml milk"),
        ("5 cups stock", .metric, "1.18 l stock"),
        ("1 tbsp olive oil", .metric, "15 ml olive oil"),
        ("1/2 tsp salt", .metric, "2.5 ml salt"),
        ("8 oz cream cheese, softened", .metric, "227 g cream cheese, softened"),
        ("2 pounds ground beef", .metric, "907 g ground beef"),
        ("3 lb potatoes", .metric, "1.36 kg potatoes"),
        ("1-2 cups water", .metric, "237-473 ml water"),
        ("250 ml double cream", .us, "1 cup double cream"),
        ("500 ml milk", .us, "2⅛ cups milk"),
        ("30 ml lemon juice", .us, "2 tbsp lemon juice"),
        ("5 ml vanilla", .us, "1 tsp vanilla"),
        ("200 g plain flour", .us, "7 oz plain flour"),
        ("1 kg potatoes", .us, "2¼ lb potatoes"),
        ("400g tin chopped tomatoes", .us, "14 oz tin chopped tomatoes"),
        ("1 l stock", .us, "4¼ cups stock"),
    ] as [(String, UnitSystem, String)])
    func converts(_ line: String, _ system: UnitSystem, _ expected: String) {
        #expect(UnitConversion.convert(ingredient: line, to: system) == expected)
    }

    @Test("what cannot be converted soundly is left as written: already in that system, no unit, a count, a unit of its own (fl oz)", arguments: [
        ("200 g flour", UnitSystem.metric), ("1 cup flour", .us), ("2 eggs", .metric), ("1 stick butter", .metric),
        ("1 (14.5 ounce) can tomatoes", .metric), ("Salt, to taste", .us), ("2 large onions", .us), ("1 fl oz rum", .metric),
    ] as [(String, UnitSystem)])
    func leftAsWritten(_ line: String, _ system: UnitSystem) {
        #expect(UnitConversion.convert(ingredient: line, to: system) == line)
    }

    @Test("oven temperatures in a step: °C to the nearest 25 °F as ovens are marked, °F to the nearest 5 °C", arguments: [
        ("Bake at 180 °C for 45 minutes.", UnitSystem.us, "Bake at 350 °F for 45 minutes."),
        ("Heat the oven to 220°C.", .us, "Heat the oven to 425°F."),
        ("Preheat to 350°F, then 425 °F.", .metric, "Preheat to 175°C, then 220 °C."),
        ("Roast at 200 degrees C.", .us, "Roast at 400 degrees F."),
        ("Bake at 180 °C.", .metric, "Bake at 180 °C."),
        ("Simmer for 20 minutes.", .us, "Simmer for 20 minutes."),
    ] as [(String, UnitSystem, String)])
    func temperatures(_ step: String, _ system: UnitSystem, _ expected: String) {
        #expect(UnitConversion.convert(temperatures: step, to: system) == expected)
    }
}
