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
            "http://recipes.example.org:99999", "http://recipes.example.org:0", "http://127.0.0.1:65536/",
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
        // Their answers are small: a trickle past 30 s is no progress.
        #expect(head.answerDeadline == .seconds(30))
        #expect(api.putImage(sha256: Self.sha, path: "/m/x", format: .png).answerDeadline == .seconds(30))
    }

    @Test("a page of the changes feed: since and limit; with wait, a long poll of at most 60 s",
          arguments: [
            (nil, "http://h:1/v1/changes?since=7&limit=100"), (50, "http://h:1/v1/changes?since=7&limit=100&wait=50"),
            (600, "http://h:1/v1/changes?since=7&limit=100&wait=60"), (-3, "http://h:1/v1/changes?since=7&limit=100&wait=0"),
          ] as [(Int?, String)])
    func changesRequest(wait: Int?, url: String) throws {
        let api = try #require(ServerAPI(baseURL: "http://h:1/"))
        let request = api.changes(since: 7, limit: 100, wait: wait)
        #expect(request.method == .get)
        #expect(request.url == url)
        #expect(request.answerDeadline == nil)  // a long poll's answer is held on purpose
    }

    @Test("PUT and DELETE of a recipe go to /v1/recipes/{lower-case uuid}; the PUT sends the outbox document as JSON")
    func recipeRequests() throws {
        let api = try #require(ServerAPI(baseURL: "https://example.org/base/"))
        let uuid = try #require(UUID(uuidString: "0F8FAD5B-D9CB-469F-A165-70867728950E"))
        let document = Data(#"{"@type":"Recipe"}"#.utf8)
        let put = api.putRecipe(uuid: uuid, document: document, base: 4)
        #expect(put.method == .put)
        #expect(put.url == "https://example.org/base/v1/recipes/0f8fad5b-d9cb-469f-a165-70867728950e")
        #expect(put.body == .data(document, contentType: "application/json"))
        let delete = api.deleteRecipe(uuid: uuid, base: 5)
        #expect(delete.method == .delete)
        #expect(delete.url == "https://example.org/base/v1/recipes/0f8fad5b-d9cb-469f-a165-70867728950e")
        #expect(delete.body == .empty)
        #expect(put.headers == ["If-Match": "\"4\""])
        #expect(delete.headers == ["If-Match": "\"5\""])
        #expect(api.putRecipe(uuid: uuid, document: document, base: nil).headers == ["If-None-Match": "*"])
        #expect(put.answerDeadline == .seconds(30))
        #expect(delete.answerDeadline == .seconds(30))
    }

    static let json = ["Content-Type": "application/json"]
    static let portal = HTTPResponse(
        status: 200, headers: ["Content-Type": "text/html"], body: Data("<html>Please log in</html>".utf8))

    @Test("an image PUT is acknowledged only by JSON naming its SHA-256 and an http(s) URL ending in it")
    func imageAcknowledgement() {
        func answer(_ body: String, headers: [String: String] = Self.json) -> Result<String, UnexpectedAnswer> {
            ServerAPI.imageAcknowledgement(HTTPResponse(status: 201, headers: headers, body: Data(body.utf8)), sha256: Self.sha)
        }
        let url = "http://h/v1/images/\(Self.sha)"
        #expect(answer(#"{"sha256":"\#(Self.sha)","url":"\#(url)","bytes":4}"#) == .success(url))
        #expect(answer(#"{"sha256":"\#(Self.sha.uppercased())","url":"https://h:8/x/\#(Self.sha)"}"#, headers: [:])
            == .success("https://h:8/x/\(Self.sha)"))
        let other = String(repeating: "cd", count: 32)
        let refusals: [(String, UnexpectedAnswer.Problem)] = [
            (#"{"sha256":"\#(other)","url":"http://h/v1/images/\#(other)"}"#, .notAcknowledging(what: "the image's SHA-256 and URL")),
            (#"{"url":"\#(url)"}"#, .notAcknowledging(what: "the image's SHA-256 and URL")),
            (#"{"sha256":"\#(Self.sha)"}"#, .notAcknowledging(what: "the image's SHA-256 and URL")),
            (#"{"sha256":"\#(Self.sha)","url":"file:///etc/passwd"}"#, .badImageURL("file:///etc/passwd")),
            (#"{"sha256":"\#(Self.sha)","url":"http://h/v1/images/\#(other)"}"#, .badImageURL("http://h/v1/images/\(other)")),
            (#"{"sha256":"\#(Self.sha)","url":"/v1/images/\#(Self.sha)"}"#, .badImageURL("/v1/images/\(Self.sha)")),
            (#"{"sha256":"\#(Self.sha)","url":"http://h/\#(Self.sha)?x=1"}"#, .badImageURL("http://h/\(Self.sha)?x=1")),
            ("", .notJSON(contentType: "application/json")),
            ("[]", .notJSON(contentType: "application/json")),
        ]
        for (body, problem) in refusals {
            #expect(answer(body) == .failure(UnexpectedAnswer(status: 201, problem: problem)), "\(body)")
        }
        #expect(ServerAPI.imageAcknowledgement(Self.portal, sha256: Self.sha)
            == .failure(UnexpectedAnswer(status: 200, problem: .htmlPage)))
        #expect(answer("  <!doctype html>", headers: [:]) == .failure(UnexpectedAnswer(status: 201, problem: .htmlPage)))
        #expect(answer("ok", headers: ["Content-Type": "text/plain"])
            == .failure(UnexpectedAnswer(status: 201, problem: .notJSON(contentType: "text/plain"))))
    }

    @Test("an image URL from an answer is an absolute http(s) URL with a host, ending in the SHA-256, nothing after it",
          arguments: [
              ("http://h/v1/images/\(sha)", true),
              ("HTTPS://recipes.example:8443/v1/images/\(sha.uppercased())", true),
              ("http://[::1]:8080/v1/images/\(sha)", true),
              ("http://user@h/\(sha)", true),
              ("http:///v1/images/\(sha)", false),
              ("http://:80/v1/images/\(sha)", false),
              ("http://user@/\(sha)", false),
              ("http://h", false),
              ("ftp://h/\(sha)", false),
              ("file:///\(sha)", false),
              ("//h/\(sha)", false),
              ("http://h/\(sha)/", false),
              ("http://h/\(sha)#x", false),
              ("http://h/\(sha)?", false),
              ("http://h/v1 images/\(sha)", false),
              ("http://h/v1/images/\(sha)\u{7F}", false),
              ("http://h/v1/images/%61\(sha.dropFirst())", false),
              ("http://h/v1/images/x\(sha)", false),
          ])
    func imageURLs(_ url: String, accepted: Bool) {
        #expect(ServerAPI.isImageURL(url, sha256: Self.sha) == accepted, "\(url)")
    }

    @Test("a recipe PUT is acknowledged only by JSON naming its identifier and a version")
    func recipeAcknowledgement() throws {
        let uuid = try #require(UUID(uuidString: "0F8FAD5B-D9CB-469F-A165-70867728950E"))
        func answer(_ body: String) -> Result<Int64, UnexpectedAnswer> {
            ServerAPI.recipeAcknowledgement(HTTPResponse(status: 200, headers: Self.json, body: Data(body.utf8)), uuid: uuid)
        }
        #expect(answer(#"{"identifier":"0f8fad5b-d9cb-469f-a165-70867728950e","version":7}"#) == .success(7))
        #expect(answer(#"{"identifier":"0F8FAD5B-D9CB-469F-A165-70867728950E","version":2}"#) == .success(2))
        let missing = UnexpectedAnswer(status: 200, problem: .notAcknowledging(what: "this recipe's identifier and version"))
        for body in [#"{"version":7}"#, #"{"identifier":"0f8fad5b-d9cb-469f-a165-70867728950e"}"#,
                     #"{"identifier":"11111111-d9cb-469f-a165-70867728950e","version":7}"#,
                     #"{"identifier":"0f8fad5b-d9cb-469f-a165-70867728950e","version":"7"}"#, "{}"] {
            #expect(answer(body) == .failure(missing), "\(body)")
        }
        #expect(ServerAPI.recipeAcknowledgement(Self.portal, uuid: uuid) == .failure(UnexpectedAnswer(status: 200, problem: .htmlPage)))
        #expect(ServerAPI.recipeAcknowledgement(HTTPResponse(status: 201), uuid: uuid)
            == .failure(UnexpectedAnswer(status: 201, problem: .notJSON(contentType: nil))))
    }

    @Test("a DELETE is acknowledged by 204, or by a contract error body with 404 or 410; any other answer is not the contract's")
    func deletionAcknowledgement() {
        func verdict(_ status: Int, _ body: String = "", _ headers: [String: String] = [:]) -> Bool {
            if case .success = ServerAPI.deletionAcknowledgement(HTTPResponse(status: status, headers: headers, body: Data(body.utf8))) {
                return true
            }
            return false
        }
        #expect(verdict(204))
        #expect(verdict(404, #"{"error":"not_found","message":"No recipe."}"#, Self.json))
        #expect(verdict(410, #"{"error":"deleted","version":3}"#, Self.json))
        #expect(!verdict(200))
        #expect(!verdict(200, "<html>Please log in</html>", ["Content-Type": "text/html"]))
        #expect(!verdict(404, "<html>Not Found</html>", ["Content-Type": "text/html"]))
        #expect(!verdict(404, "Not Found", ["Content-Type": "text/plain"]))
        func refusal(_ response: HTTPResponse) -> UnexpectedAnswer? {
            if case .failure(let unexpected) = ServerAPI.deletionAcknowledgement(response) { return unexpected }
            return nil
        }
        #expect(refusal(Self.portal) == UnexpectedAnswer(status: 200, problem: .htmlPage))
        #expect(refusal(HTTPResponse(status: 202)) == UnexpectedAnswer(status: 202, problem: .unexpectedStatus(expected: "204")))
    }

    @Test("a HEAD proves the server has the image only with 200 and the image's ETag")
    func headConfirmation() {
        func head(_ status: Int, _ headers: [String: String]) -> Bool {
            ServerAPI.headConfirmsImage(HTTPResponse(status: status, headers: headers), sha256: Self.sha)
        }
        #expect(head(200, ["ETag": "\"\(Self.sha)\""]))
        #expect(head(200, ["etag": " W/\"\(Self.sha)\" "]))
        #expect(!head(200, [:]))
        #expect(!head(200, ["Content-Type": "text/html"]))
        #expect(!head(200, ["ETag": Self.sha]))
        #expect(!head(200, ["ETag": "\"\(String(repeating: "cd", count: 32))\""]))
        #expect(!head(404, ["ETag": "\"\(Self.sha)\""]))
    }

    @Test("the message of an unexpected answer says what came, that nothing was marked synced, and what to check")
    func unexpectedAnswerWords() {
        let portal = UnexpectedAnswer(status: 200, problem: .htmlPage).description
        #expect(portal.contains("HTTP 200"))
        #expect(portal.contains("HTML page"))
        #expect(portal.contains("captive portal or a proxy"))
        #expect(portal.hasSuffix("nothing was marked synced"))
        let url = UnexpectedAnswer(status: 201, problem: .badImageURL("file:///etc/passwd\u{1B}[2J")).description
        #expect(url.contains("file:///etc/passwd?[2J"))
        #expect(!url.contains("\u{1B}"))
    }

    @Test("a 412 body says the server's version; a 410 body the tombstone's; anything else says none")
    func versionAnswers() {
        #expect(ServerAPI.staleVersion(inAnswer: Data(#"{"error":"stale","version":12,"deleted":false}"#.utf8)) == 12)
        #expect(ServerAPI.staleVersion(inAnswer: Data(#"{"version":"7"}"#.utf8)) == nil)
        #expect(ServerAPI.staleVersion(inAnswer: Data("garbage".utf8)) == nil)
        // Deleted on the server: the 412 names the tombstone, which is the copy (no read needed).
        #expect(ServerAPI.staleTombstone(inAnswer: Data(#"{"error":"stale","version":4,"deleted":true}"#.utf8)) == 4)
        #expect(ServerAPI.staleTombstone(inAnswer: Data(#"{"error":"stale","version":4,"deleted":false}"#.utf8)) == nil)
        #expect(ServerAPI.staleTombstone(inAnswer: Data(#"{"error":"stale","version":4,"deleted":1}"#.utf8)) == nil)
        #expect(ServerAPI.staleTombstone(inAnswer: Data(#"{"error":"stale","deleted":true}"#.utf8)) == nil)
        #expect(ServerAPI.staleTombstone(inAnswer: Data(#"{"error":"invalid","version":4,"deleted":true}"#.utf8)) == nil)
        #expect(ServerAPI.tombstoneVersion(inAnswer: Data(#"{"error":"deleted","message":"gone","version":3}"#.utf8)) == 3)
        #expect(ServerAPI.tombstoneVersion(inAnswer: Data(#"{"error":"not_found","version":3}"#.utf8)) == nil)
        #expect(ServerAPI.tombstoneVersion(inAnswer: Data("[3]".utf8)) == nil)
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
