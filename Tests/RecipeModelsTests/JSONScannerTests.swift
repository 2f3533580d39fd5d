import Foundation
import Testing
@testable import RecipeModels

@Suite("JSONScanner: members and elements with each value's text exactly as written")
struct JSONScannerTests {
    @Test("an object's members keep their spacing, escapes and numbers as written; keys are decoded")
    func members() throws {
        let text = #" { "a" : 1.10 , "b\u00e9":"x\"y\\z" ,"c":{ "d" : [1, {"e":"}"}] },"f":[ ],"g":null,"h":true } "#
        let members = try #require(JSONScanner.members(of: text))
        #expect(members.map(\.key) == ["a", "bé", "c", "f", "g", "h"])
        #expect(members.map(\.value) == ["1.10", #""x\"y\\z""#, #"{ "d" : [1, {"e":"}"}] }"#, "[ ]", "null", "true"])
        #expect(JSONScanner.members(of: "{}")?.isEmpty == true)
    }

    @Test("an array's elements, and ranges into data for pages of documents")
    func elements() throws {
        #expect(JSONScanner.elements(of: #"[ "a,b" , {"x":[1,2]}, 3 ]"#) == [#""a,b""#, #"{"x":[1,2]}"#, "3"])
        let data = Data(#"{"changes":[{"recipe":{"name":"A"}},{"recipe":{"name":"B"}}],"more":false}"#.utf8)
        let changes = try #require(JSONScanner.memberRanges(of: data)?.first { $0.key == "changes" }?.value)
        let items = try #require(JSONScanner.elementRanges(of: data, in: changes))
        try #require(items.count == 2)
        let recipe = try #require(JSONScanner.memberRanges(of: data, in: items[1])?.first?.value)
        try #require(recipe.clamped(to: data.startIndex..<data.endIndex) == recipe, "\(recipe) lies in the \(data.count) bytes")
        #expect(String(decoding: data[recipe], as: UTF8.self) == #"{"name":"B"}"#)
    }

    @Test("what is not one well-formed object or array is refused", arguments: [
        "", "[]", "{", "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "{\"a\":1} x", "{\"a\":\"open}", "{\"a\":[1,2}", "{a:1}",
        "{\"a\":1 \"b\":2}",
    ])
    func refuses(_ text: String) {
        #expect(JSONScanner.members(of: text) == nil)
    }
}
