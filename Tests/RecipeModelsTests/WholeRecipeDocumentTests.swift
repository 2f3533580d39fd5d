import Foundation
import PropertyBased
import Testing
@testable import RecipeModels

/// Generators of recipe documents as other apps and recipe sites write them: every property in one of the shapes
/// found in the wild (a text or a list, a `Person` with its `url`, numbers in `nutrition`, `HowToSection`s with steps
/// that carry their own `url`), spacing and escapes of every kind, and properties `recipes` does not read.
enum DocumentGen {
    /// Picks one of `choices`.
    static func one(_ choices: [String]) -> Generator<String, Shrink.Integer<Int>> {
        Gen.int(in: 0...(choices.count - 1)).map { choices[$0] }
    }

    static let context = one([#""https://schema.org""#, #""http://schema.org/""#, #"{"@vocab": "https://schema.org/"}"#])
    static let name = one([#""Tomato soup""#, #""Tom\u00e1to &amp; basil""#, #""Soup \"deluxe\"""#, #""Gr\/ated""#])
    static let description = one(["", #""A warm soup.""#, #""Two\nlines""#, "null"])
    static let yield = one(["", #""4 servings""#, #"["4", "4 servings"]"#, "6", #""Serves 4-6""#])
    static let keywords = one(["", #""soup, vegan""#, #"["soup","vegan"]"#])
    static let ingredients = one(["", #"["1 egg","200 g flour"]"#, #"[ "2 tbsp oil" , "salt" ]"#, #""one\ntwo""#])
    static let instructions = one([
        "", #"[{"@type":"HowToStep","text":"Chop."},{"@type":"HowToStep","text":"Simmer.","url":"https://x.example/#s2"}]"#,
        #"[{"@type":"HowToSection","name":"Sauce","itemListElement":[{"@type":"HowToStep","text":"Stir.","name":"Stir."}]},{"@type":"HowToStep","text":"Serve."}]"#,
        #"["Mix.", "Bake."]"#,
    ])
    static let time = one(["", #""PT15M""#, #""P0DT1H30M""#, #""PT1H""#])
    static let category = one(["", #""Soup""#, #"["Main course", "Dinner"]"#])
    static let author = one([
        "", #""Jane Doe""#, #"{"@type":"Person","name":"Jane Doe","url":"https://x.example/jane"}"#,
        #"[{"@type":"Person","name":"A"},{"@type":"Organization","name":"B"}]"#,
    ])
    static let url = one(["", #""https://x.example/soup""#])
    static let nutrition = one([
        "", #"{"@type":"NutritionInformation","calories":"240 kcal","fatContent":9}"#,
        #"{"@type": "NutritionInformation", "proteinContent": "5 g"}"#,
    ])
    static let tool = one(["", #"[{"@type":"HowToTool","name":"Pan"}]"#, #""Blender""#])
    static let diet = one(["", #""https://schema.org/VeganDiet""#, #"["https://schema.org/LowFatDiet"]"#])
    static let other = one([
        "", #"{"@type":"AggregateRating","ratingValue":4.50,"ratingCount":"12"}"#, #"[1, 2.0, true, null, 1e3]"#,
        #""caf\u00e9 \/ \"quoted\"""#, #"{ "nested" : { "deep" : [ ] } }"#,
    ])

    /// A document's members as text, some left out: the values as another app wrote them.
    static let document = zip(
        zip(context, name, description, yield, keywords, ingredients, instructions, time),
        zip(time, category, category, author, url, nutrition, tool, diet),
        zip(other, other, other, Gen.int(in: 0...2))
    ).map { first, second, third -> [(key: String, value: String)] in
        let (context, name, description, yield, keywords, ingredients, instructions, prep) = first
        let (cook, category, cuisine, author, url, nutrition, tool, diet) = second
        let (rating, extra, comment, spacing) = third
        let members: [(String, String)] = [
            ("@context", context), ("@type", #""Recipe""#), ("identifier", #""0f6f3a52-5d7c-4e1c-9a3e-1b2c3d4e5f60""#),
            ("version", "3"), ("name", name), ("description", description), ("recipeYield", yield), ("keywords", keywords),
            ("recipeIngredient", ingredients), ("recipeInstructions", instructions), ("prepTime", prep),
            ("cookTime", cook), ("recipeCategory", category), ("recipeCuisine", cuisine), ("author", author),
            ("url", url), ("nutrition", nutrition), ("tool", tool), ("suitableForDiet", diet),
            ("aggregateRating", rating), ("x-extra", extra), ("comment", comment),
        ]
        _ = spacing
        return members.filter { !$0.1.isEmpty }.map { (key: $0.0, value: $0.1) }
    }

    /// The document's text, members separated as `spacing` says (compact, spaced, one per line).
    static func text(_ members: [(key: String, value: String)], spacing: Int) -> String {
        let separator = [",", ", ", ",\n  "][spacing]
        let colon = [":", ": ", " : "][spacing]
        return "{" + members.map { "\"\($0.key)\"" + colon + $0.value }.joined(separator: separator) + "}"
    }

    /// An edit a person makes on one field: which, and the value.
    static let edit = zip(Gen.int(in: 0...8), one(["New", "PT2H", "Other words"]))

    /// Applies an edit; the JSON-LD key of the property it changed.
    static func apply(_ edit: (Int, String), to fields: inout RecipeFields) -> String {
        let (which, value) = edit
        switch which {
        case 0: fields.title = value + " title"; return "name"
        case 1: fields.description = value; return "description"
        case 2: fields.details.cookTime = value; return "cookTime"
        case 3: fields.details.recipeCategory.append(value); return "recipeCategory"
        case 4: fields.details.author = value; return "author"
        case 5: fields.ingredients.append(value); return "recipeIngredient"
        case 6: fields.steps.append(Step(text: value, section: "Later")); return "recipeInstructions"
        case 7: fields.details.nutrition["sugarContent"] = value; return "nutrition"
        default: fields.recipeYield = value; return "recipeYield"
        }
    }
}

@Suite("The whole recipe in JSON-LD: every property read, every property kept, nothing edited rewritten")
struct WholeRecipeDocumentTests {
    @Test("a document read and written back after an edit of one field has every other property byte for byte")
    func untouchedPropertiesKeepTheirBytes() async {
        await propertyCheck(count: 400, input: DocumentGen.document, Gen.int(in: 0...2), DocumentGen.edit) {
            members, spacing, edit in
            let text = DocumentGen.text(members, spacing: spacing)
            guard let read = RecipeJSONLD.readDocument(Data(text.utf8)) else {
                Issue.record("the document does not read: \(text)")
                return
            }
            var fields = read.fields
            let edited = DocumentGen.apply(edit, to: &fields)
            let writtenMembers = RecipeJSONLD.members(of: fields)
            let written = Dictionary(writtenMembers.map { ($0.key, String(decoding: $0.value, as: UTF8.self)) }) { first, _ in first }
            #expect(written.count == writtenMembers.count, "a member written twice after editing \(edited)")
            for (key, value) in members where key != edited && !["@type", "identifier", "version"].contains(key) {
                #expect(written[key] == value, "\(key) of \(text) after editing \(edited)")
            }
            // The edit itself is in the document, and reads back.
            let document = "{" + written.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ",") + "}"
            let again = RecipeJSONLD.readDocument(Data(document.utf8))
            #expect(again?.fields == fields, "\(document)")
        }
    }

    @Test("a document without an edit is written back with exactly the properties it had")
    func nothingAddedNothingDropped() async {
        await propertyCheck(count: 200, input: DocumentGen.document) { members in
            let text = DocumentGen.text(members, spacing: 0)
            guard let read = RecipeJSONLD.readDocument(Data(text.utf8)) else {
                Issue.record("the document does not read: \(text)")
                return
            }
            let written = RecipeJSONLD.members(of: read.fields)
            let expected = members.filter { !["@type", "identifier", "version"].contains($0.key) }
                .sorted { JSONBytes.precedes($0.key, $1.key) }
            #expect(written.map(\.key) == expected.map(\.key))
            #expect(written.map { String(decoding: $0.value, as: UTF8.self) } == expected.map(\.value))
        }
    }

    /// Fields as `recipes` itself holds them, made here (no forms): any text in any field.
    static let texts = DocumentGen.one(["", "a", "two\nlines", "\"q\" \\ /", "é 🍅", " padded ", "a, b"])
    static let fields = zip(
        zip(texts, texts, texts, texts, texts.array(of: 0...3)),
        zip(zip(texts, DocumentGen.one(["", "Sauce", "Dough"])).array(of: 0...4), texts.array(of: 0...2), texts,
            texts, zip(DocumentGen.one(["calories", "fatContent"]), texts).array(of: 0...2)),
        DocumentGen.other.array(of: 0...2)
    ).map { first, second, others -> RecipeFields in
        let (title, description, yield, keywords, ingredients) = first
        let (steps, categories, time, author, nutrition) = second
        var other: [String: String] = [:]
        for (index, value) in others.enumerated() where !value.isEmpty { other["x\(index)"] = value }
        return RecipeFields(
            title: title, description: description, recipeYield: yield, keywords: keywords, ingredients: ingredients,
            steps: steps.map { Step(text: $0.0, section: $0.1) },
            details: RecipeDetails(
                prepTime: time, cookTime: time, recipeCategory: categories, recipeCuisine: categories, author: author,
                url: author, nutrition: Dictionary(nutrition, uniquingKeysWith: { _, last in last }), tool: categories,
                suitableForDiet: categories),
            received: ReceivedProperties(other: other))
    }

    @Test("what recipes writes reads back as the same fields")
    func writtenReadsBack() async {
        await propertyCheck(count: 400, input: Self.fields) { fields in
            let members = RecipeJSONLD.members(of: fields)
            var bytes: [UInt8] = []
            JSONBytes.appendObject(members, to: &bytes)
            let read = RecipeJSONLD.readDocument(Data(bytes))
            #expect(read?.fields == fields, "\(String(decoding: bytes, as: UTF8.self))")
            // It is JSON that JSONSerialization reads too.
            #expect((try? JSONSerialization.jsonObject(with: Data(bytes))) != nil)
        }
    }

    @Test("a recipe made here is written in the contract's shape: sections, a Person, nutrition with its type")
    func ownShape() {
        let fields = RecipeFields(
            title: "Soup", ingredients: ["1 onion"],
            steps: [Step(text: "Chop."), Step(text: "Stir.", section: "Sauce"), Step(text: "Pour.", section: "Sauce")],
            details: RecipeDetails(
                cookTime: "PT1H30M", recipeCategory: ["Soup"], author: "Jane", nutrition: ["calories": "240 kcal"]))
        let writtenMembers = RecipeJSONLD.members(of: fields)
        let written = Dictionary(writtenMembers.map { ($0.key, String(decoding: $0.value, as: UTF8.self)) }) { first, _ in first }
        #expect(written.count == writtenMembers.count, "a member written twice")
        #expect(written["recipeInstructions"] == #"[{"@type":"HowToStep","text":"Chop."},{"@type":"HowToSection","itemListElement":[{"@type":"HowToStep","text":"Stir."},{"@type":"HowToStep","text":"Pour."}],"name":"Sauce"}]"#)
        #expect(written["author"] == #"{"@type":"Person","name":"Jane"}"#)
        #expect(written["nutrition"] == #"{"@type":"NutritionInformation","calories":"240 kcal"}"#)
        #expect(written["cookTime"] == #""PT1H30M""#)
        #expect(written["recipeCategory"] == #"["Soup"]"#)
        #expect(written["@context"] == #""https://schema.org""#)
        // Unset details are left out; the contract's always-present properties are there.
        #expect(written["prepTime"] == nil && written["url"] == nil && written["tool"] == nil)
        #expect(written["description"] == #""""# && written["keywords"] == #""""# && written["recipeYield"] == #""""#)
    }

    @Test("a property that arrived is written in its form only while the form reads as the field's value")
    func formsFollowEdits() throws {
        let document = #"{"@type":"Recipe","name":"Soup","author":{"@type":"Person","name":"Jane","url":"https://x.example/jane"},"recipeYield":["4","4 servings"],"description":null}"#
        var fields = try #require(RecipeJSONLD.readDocument(Data(document.utf8))).fields
        #expect(fields.details.author == "Jane")
        #expect(fields.recipeYield == "4 servings")
        func written(_ key: String) -> String? {
            RecipeJSONLD.members(of: fields).first { $0.key == key }.map { String(decoding: $0.value, as: UTF8.self) }
        }
        #expect(written("author") == #"{"@type":"Person","name":"Jane","url":"https://x.example/jane"}"#)
        #expect(written("description") == "null")
        #expect(written("keywords") == nil)  // it did not arrive with keywords, and has none
        fields.details.author = "John"
        fields.description = "Hot."
        #expect(written("author") == #"{"@type":"Person","name":"John"}"#)
        #expect(written("description") == #""Hot.""#)
        #expect(written("recipeYield") == #"["4","4 servings"]"#)
    }
}
