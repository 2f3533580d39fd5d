import Foundation
import RecipeModels
@testable import RecipeSync
import Testing
import Transport

@Suite("ServerAPI builds the contract's requests and reads its answers")
struct ServerAPITests {
    static let sha = String(repeating: "ab", count: 32)

    @Test(
        "a base URL is trimmed of blanks and every trailing slash",
        arguments: [
            ("http://127.0.0.1:8080", "http://127.0.0.1:8080"),
            ("http://127.0.0.1:8080/", "http://127.0.0.1:8080"),
            ("https://recipes.example.org///", "https://recipes.example.org"),
            ("  https://recipes.example.org/api/ ", "https://recipes.example.org/api"),
            ("HTTPS://Recipes.example.org", "HTTPS://Recipes.example.org"),
        ])
    func acceptsAndTrims(input: String, expected: String) throws {
        let api = try #require(ServerAPI(baseURL: input))
        #expect(api.baseURL == expected)
        #expect(!api.imageURL(sha256: Self.sha).contains("//v1"))
    }

    @Test(
        "a base URL that is not http(s) with a host, or carries credentials, a query or a fragment, is refused",
        arguments: [
            "ftp://recipes.example.org", "file:///tmp/x", "http://", "http:///v1", "recipes.example.org",
            "http://recipes.example.org?token=1", "http://recipes.example.org/?a=b/", "http://recipes.example.org/#top",
            "", "   ", "not a url", "http://user:secret@recipes.example.org", "https://user@recipes.example.org",
        ])
    func refuses(input: String) {
        #expect(ServerAPI(baseURL: input) == nil)
    }

    @Test("HEAD and PUT of an image go to /v1/images/{sha256}; the PUT streams the file with its media type")
    func imageRequests() throws {
        let api = try #require(ServerAPI(baseURL: "http://h:1/"))
        let head = api.headImage(sha256: Self.sha)
        #expect(head.method == .head)
        #expect(head.url == "http://h:1/v1/images/\(Self.sha)")
        #expect(head.body == .empty)
        for format in ImageFormat.allCases {
            let put = api.putImage(sha256: Self.sha, path: "/m/x", format: format)
            #expect(put.method == .put)
            #expect(put.url == "http://h:1/v1/images/\(Self.sha)")
            #expect(put.body == .file(path: "/m/x", contentType: format.mediaType))
        }
        #expect(api.putImage(sha256: Self.sha, path: "/m/x", format: .jpeg).body.contentType == "image/jpeg")
        #expect(api.putImage(sha256: Self.sha, path: "/m/x", format: .webp).body.contentType == "image/webp")
        #expect(api.imageURL(sha256: Self.sha) == "http://h:1/v1/images/\(Self.sha)")
    }

    @Test("PUT and DELETE of a recipe go to /v1/recipes/{lower-case uuid}; the PUT sends the outbox document as JSON")
    func recipeRequests() throws {
        let api = try #require(ServerAPI(baseURL: "https://example.org/base/"))
        let uuid = try #require(UUID(uuidString: "0F8FAD5B-D9CB-469F-A165-70867728950E"))
        let document = Data(#"{"@type":"Recipe"}"#.utf8)
        let put = api.putRecipe(uuid: uuid, document: document)
        #expect(put.method == .put)
        #expect(put.url == "https://example.org/base/v1/recipes/0f8fad5b-d9cb-469f-a165-70867728950e")
        #expect(put.body == .data(document, contentType: "application/json"))
        let delete = api.deleteRecipe(uuid: uuid)
        #expect(delete.method == .delete)
        #expect(delete.url == "https://example.org/base/v1/recipes/0f8fad5b-d9cb-469f-a165-70867728950e")
        #expect(delete.body == .empty)
    }

    @Test("the image answer's URL is taken only when its sha256 is the one uploaded")
    func imageAnswer() {
        let good = Data(#"{"sha256":"\#(Self.sha)","url":"http://h/v1/images/\#(Self.sha)","bytes":4}"#.utf8)
        #expect(ServerAPI.imageURL(inAnswer: good, sha256: Self.sha) == "http://h/v1/images/\(Self.sha)")
        let other = String(repeating: "cd", count: 32)
        let mismatched = Data(#"{"sha256":"\#(other)","url":"http://h/v1/images/\#(other)","bytes":4}"#.utf8)
        #expect(ServerAPI.imageURL(inAnswer: mismatched, sha256: Self.sha) == nil)
        #expect(ServerAPI.imageURL(inAnswer: Data(#"{"sha256":"\#(Self.sha)"}"#.utf8), sha256: Self.sha) == nil)
        #expect(ServerAPI.imageURL(inAnswer: Data(#"{"url":""}"#.utf8), sha256: Self.sha) == nil)
        #expect(ServerAPI.imageURL(inAnswer: Data("<html>".utf8), sha256: Self.sha) == nil)
        #expect(ServerAPI.imageURL(inAnswer: Data(), sha256: Self.sha) == nil)
    }

    @Test("the version is read from a recipe answer and from a 409 body; anything else has none")
    func versionAnswer() {
        #expect(ServerAPI.version(inAnswer: Data(#"{"identifier":"x","version":7}"#.utf8)) == 7)
        #expect(
            ServerAPI.version(inAnswer: Data(#"{"error":"stale-version","message":"newer","version":12}"#.utf8)) == 12)
        #expect(ServerAPI.version(inAnswer: Data(#"{"identifier":"x"}"#.utf8)) == nil)
        #expect(ServerAPI.version(inAnswer: Data(#"{"version":"7"}"#.utf8)) == nil)
        #expect(ServerAPI.version(inAnswer: Data("[7]".utf8)) == nil)
        #expect(ServerAPI.version(inAnswer: Data("garbage".utf8)) == nil)
    }

    @Test("answer fields: strings with every escape, integers, skipped values of other kinds, white space; malformed answers have none")
    func answerFields() {
        func parse(_ text: String) -> [String: AnswerFields.Value]? { AnswerFields.parse(Data(text.utf8)) }
        #expect(parse(#" { "a" : "x\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00" , "n": -42, "f": 1.5, "e": 1e3, "t": true, "z": null, "o": {"k": ["}", 1]}, "l": [1, "]"] } "#)
            == ["a": .string("x\"\\/\u{08}\u{0C}\n\r\té😀"), "n": .integer(-42), "f": .other, "e": .other, "t": .other,
                "z": .other, "o": .other, "l": .other])
        #expect(parse("{}") == [:])
        #expect(parse(#"{"big": 99999999999999999999}"#) == ["big": .other])
        for malformed in [#"{"a":1"#, #"{"a":1} x"#, #"{"a" 1}"#, #"{"a":"\q"}"#, #"{"a":"\ud83d"}"#, "[1]", "", #"{"a":tru}"#,
                          "{\"a\":\"line\nbreak\"}", #"{"a":[1,2}"#, #"{"a":-}"#, #"{"a":"é"#] {
            #expect(parse(malformed) == nil, "\(malformed)")
        }
    }

    @Test("answer fields agree with JSONSerialization on 500 random flat objects of strings and integers")
    func answerFieldsAgreeWithJSONSerialization() throws {
        var generator = SystemRandomNumberGenerator()
        let alphabet: [Character] = ["a", "\"", "\\", "/", "\n", "\u{01}", "é", "😀", "\u{2028}", " ", "}", "]"]
        func text() -> String {
            String((0..<Int.random(in: 0...8, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
        }
        for _ in 0..<500 {
            var object: [String: Any] = [:]
            var expected: [String: AnswerFields.Value] = [:]
            for _ in 0..<Int.random(in: 0...5, using: &generator) {
                let key = text()
                if Bool.random(using: &generator) {
                    let value = text()
                    object[key] = value
                    expected[key] = .string(value)
                } else {
                    let value = Int64.random(in: Int64.min...Int64.max, using: &generator)
                    object[key] = value
                    expected[key] = .integer(value)
                }
            }
            let data = try JSONSerialization.data(withJSONObject: object)
            #expect(AnswerFields.parse(data) == expected, "\(String(decoding: data, as: UTF8.self))")
        }
    }
}
