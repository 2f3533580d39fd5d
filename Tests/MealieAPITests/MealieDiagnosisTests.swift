import Foundation
@testable import MealieAPI
import Testing
import Transport

@Suite("MealieDiagnosis and MealieFailure: what Mealie's answers mean for the set-up and for a recipe")
struct MealieDiagnosisTests {
    static let url = "http://127.0.0.1:9000"

    /// One row: the two answers, and the exit status the diagnosis gives.
    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var about: Result<HTTPResponse, TransportError>
        var group: Result<HTTPResponse, TransportError>?
        var status: Int32
        var words: String?
        var testDescription: String { name }
    }

    /// The rows; a captured answer that cannot be read fails the test instead of crashing the test process.
    static func rows() throws -> [Row] { try [
        Row(name: "a Mealie that takes the token", about: .success(Fixture.response("about")),
            group: .success(Fixture.response("group")), status: 0),
        Row(name: "the token refused: exit 77", about: .success(Fixture.response("about")),
            group: .success(Fixture.response("group-401")), status: 77,
            words: "the Mealie at \(url) refused server.token (HTTP 401: Could not validate credentials); make an API token in "
                + "Mealie (your profile, API Tokens) and set it with `recipes config set server.token -`"),
        Row(name: "a path where no Mealie is (404 Not Found): not a Mealie", about: .success(Fixture.response("route-404")),
            group: nil, status: 1),
        Row(name: "an HTML page (a portal, another web app): not a Mealie",
            about: .success(Fixture.raw(200, "<html>hello</html>", contentType: "text/html")), group: nil, status: 1),
        Row(name: "the contract server's JSON: not a Mealie", about: .success(Fixture.raw(404, #"{"error":"not_found"}"#)),
            group: nil, status: 1),
        Row(name: "TLS to a plain HTTP server: not a Mealie", about: .failure(TransportError(kind: .tls, message: "wrong version number")),
            group: nil, status: 1),
        Row(name: "nothing listening: try later", about: .failure(TransportError(kind: .connectionRefused, message: "Connection refused")),
            group: nil, status: 75, words: "cannot reach the Mealie at \(url): Connection refused"),
        Row(name: "Mealie's own error: try later", about: .success(Fixture.raw(502, "Bad Gateway", contentType: "text/plain")),
            group: nil, status: 75),
    ] }

    @Test("About, then the group: a Mealie, a refused token, not a Mealie, unreachable", arguments: try rows())
    func diagnosis(_ row: Row) {
        let diagnosis = MealieDiagnosis.classify(about: row.about, group: row.group, url: Self.url, hasToken: true)
        #expect(diagnosis.exitStatus == row.status, "\(diagnosis)")
        if let words = row.words {
            switch diagnosis {
            case .tokenRefused(let said), .unreachable(let said): #expect(said == words)
            default: Issue.record("\(diagnosis)")
            }
        }
    }

    @Test("No token set: the refusal says so")
    func noToken() throws {
        let diagnosis = MealieDiagnosis.classify(about: .success(try Fixture.response("about")),
                                                 group: .success(try Fixture.response("group-401")), url: Self.url, hasToken: false)
        guard case .tokenRefused(let words) = diagnosis else { Issue.record("\(diagnosis)"); return }
        #expect(words.hasPrefix("the Mealie at \(Self.url) needs a token and server.token is not set;"))
    }

    @Test("A recipe's 403 is that recipe's refusal, the group's 403 the token's; 5xx and a bad body retry; 422 refused in Mealie's words")
    func failures() throws {
        let forbidden = Result<HTTPResponse, TransportError>.success(Fixture.raw(403, #"{"detail":{"message":"Permission Denied"}}"#))
        #expect(MealieFailure.of(forbidden, unexpected: nil, recipeScoped: true, now: Date(), token: nil)
            == .refused(message: "Mealie refused this recipe (HTTP 403: Permission Denied)"))
        guard case .badCredentials = MealieFailure.of(forbidden, unexpected: nil, recipeScoped: false, now: Date(), token: nil) else {
            Issue.record("the group's 403 is not the token's"); return
        }
        let busy = Result<HTTPResponse, TransportError>.success(HTTPResponse(status: 503, headers: ["Retry-After": "7"], body: Data()))
        guard case .retry(_, let after) = MealieFailure.of(busy, unexpected: nil, recipeScoped: true, now: Date(), token: nil) else {
            Issue.record("503 is not transient"); return
        }
        #expect(after == .seconds(7))
        let odd = MealieAnswerError(status: 200, request: "the request for recipe x", problem: .missingField(path: "updatedAt"))
        guard case .retry(let reason, nil) = MealieFailure.of(.success(Fixture.raw(200, "{}")), unexpected: odd, recipeScoped: true,
                                                              now: Date(), token: nil) else { Issue.record("a bad body is not retried"); return }
        #expect(reason == odd.description)
        #expect(MealieFailure.of(.success(try Fixture.response("validation-422")), unexpected: nil, recipeScoped: true, now: Date(), token: nil)
            == .refused(message: "HTTP 422: body.tools.0.id: Field required"))
    }
}
