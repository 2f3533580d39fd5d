import Foundation
import MealieAPI
import Testing
import Transport

@Suite("RecipeCreation: creating exactly once across lost answers, resets and kill -9")
struct RecipeCreationTests {
    static let now = Date(timeIntervalSince1970: 1_795_774_556)
    static let id = UUID(uuidString: "6c287c71-7993-479e-8872-f4af1626f916")!

    /// One row: what came back from the import, and what to do next.
    struct ImportRow: Sendable, CustomTestStringConvertible {
        var name: String
        var result: Result<HTTPResponse, TransportError>
        var next: RecipeCreation.Next
        var testDescription: String { name }
    }

    /// The rows; a captured answer that cannot be read fails the test instead of crashing the test process.
    static func importRows() throws -> [ImportRow] { try [
        ImportRow(name: "201 with a slug: read back (under concurrent imports it may be another request's recipe)",
                  result: .success(Fixture.response("create-zip-201")), next: .readBack(importStatus: 201)),
        ImportRow(name: "500 (the retry of an import that landed, or a real failure): read back",
                  result: .success(Fixture.response("create-zip-500")), next: .readBack(importStatus: 500)),
        ImportRow(name: "201 that is not a slug (a proxy's page): read back all the same",
                  result: .success(Fixture.raw(201, "<html>ok</html>", contentType: "text/html")), next: .readBack(importStatus: 201)),
        ImportRow(name: "the answer lost (connection closed, no reply): send again",
                  result: .failure(TransportError(kind: .connectionLost, message: "Empty reply from server")),
                  next: .retry(reason: "Empty reply from server", after: nil)),
        ImportRow(name: "a reset: send again",
                  result: .failure(TransportError(kind: .connectionLost, message: "Connection reset by peer")),
                  next: .retry(reason: "Connection reset by peer", after: nil)),
        ImportRow(name: "503 with Retry-After: send again after it",
                  result: .success(HTTPResponse(status: 503, headers: ["Retry-After": "7"], body: Data(#"{"detail":"unavailable"}"#.utf8))),
                  next: .retry(reason: #"HTTP 503: {"detail":"unavailable"}"#, after: .seconds(7))),
        ImportRow(name: "401: the run stops", result: .success(Fixture.response("group-401")),
                  next: .badCredentials(message: #"HTTP 401: {"detail":"Could not validate credentials"}"#)),
        ImportRow(name: "422 (a form Mealie cannot read): refused with Mealie's words",
                  result: .success(Fixture.response("validation-422")),
                  next: .refused(message: "HTTP 422: body.tools.0.id: Field required")),
        ImportRow(name: "cancelled", result: .failure(.cancelled()), next: .cancelled),
    ] }

    @Test("After the import", arguments: try importRows())
    func afterImport(row: ImportRow) {
        #expect(RecipeCreation.afterImport(row.result, now: Self.now) == row.next)
    }

    @Test("After the read-back: the recipe there is created (by this import or an earlier one); absent is a retry")
    func afterReadBack() throws {
        let found = RecipeCreation.afterReadBack(.success(try Fixture.response("recipe")), id: Self.id, importStatus: 500, now: Self.now)
        guard case .created(let stamp) = found else { Issue.record("\(found)"); return }
        #expect(stamp.id == Self.id && stamp.slug == "captured-soup")

        let absent = RecipeCreation.afterReadBack(.success(try Fixture.response("recipe-404")), id: Self.id, importStatus: 201, now: Self.now)
        #expect(absent == .retry(reason: "Mealie answered the creation of recipe 6c287c71-7993-479e-8872-f4af1626f916 with HTTP 201 "
                                     + "and has not created it (see Mealie's log)", after: nil))

        // A recipe under another id is no proof: try again.
        let other = RecipeCreation.afterReadBack(.success(try Fixture.response("recipe")), id: UUID(), importStatus: 201, now: Self.now)
        guard case .retry = other else { Issue.record("\(other)"); return }
        // Nor is a 404 that is not Mealie's "No Entry Found" (no Mealie at server.url).
        let route = RecipeCreation.afterReadBack(.success(try Fixture.response("route-404")), id: Self.id, importStatus: 201, now: Self.now)
        guard case .retry(let reason, nil) = route else { Issue.record("\(route)"); return }
        #expect(reason.contains("server.url"))

        let lost = RecipeCreation.afterReadBack(.failure(TransportError(kind: .timeout, message: "timed out")), id: Self.id,
                                                importStatus: 500, now: Self.now)
        #expect(lost == .retry(reason: "timed out", after: nil))
        let refused = RecipeCreation.afterReadBack(.success(try Fixture.response("group-401")), id: Self.id, importStatus: 500, now: Self.now)
        guard case .badCredentials = refused else { Issue.record("\(refused)"); return }
    }

    @Test("The token never appears in a message, even when Mealie echoes it")
    func redaction() {
        let echo = HTTPResponse(status: 422, headers: ["Content-Type": "application/json"],
                                body: Data(#"{"detail":"bad token s3cret-token-value"}"#.utf8))
        let next = RecipeCreation.afterImport(.success(echo), now: Self.now, redacting: "s3cret-token-value")
        #expect(next == .refused(message: "HTTP 422: bad token <token>"))
    }
}
