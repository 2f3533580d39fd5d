import Foundation
import Testing
import Transport
@testable import RecipeSync

/// `recipes doctor`'s verdict on the answer to `GET /v1/changes?since=0&limit=1` sent with the device's token, from a
/// table: no I/O.
@Suite("ServerCheck: what one request with the token says about the server")
struct ServerCheckTests {
    static let page = Data(#"{"server":"srv-1","changes":[],"next":0,"more":false}"#.utf8)

    @Test("a feed page is accepted; 401 and 403 are the credentials refused; other answers and failures in words")
    func verdicts() {
        let noMistake: (DestinationDiagnosis.Observation) -> ServerCheck? = { _ in nil }
        let rows: [(Result<HTTPResponse, TransportError>, String?, ServerCheck)] = [
            (.success(HTTPResponse(status: 200, body: Self.page)), "t", .accepted("server srv-1")),
            (.success(HTTPResponse(status: 401)), "t", .credentialsRefused(status: 401, tokenSet: true)),
            (.success(HTTPResponse(status: 403)), nil, .credentialsRefused(status: 403, tokenSet: false)),
            (.failure(TransportError(kind: .connectionRefused, message: "cannot connect")), "t", .unreachable("cannot connect")),
        ]
        for (index, row) in rows.enumerated() {
            #expect(ServerCheck.verdict(row.0, mistake: noMistake, token: row.1, now: Date()) == row.2, "row \(index)")
        }
        let unavailable = ServerCheck.verdict(
            .success(HTTPResponse(status: 503)), mistake: noMistake, token: "t", now: Date())
        guard case .unexpected(let words) = unavailable else {
            Issue.record("a 503 is no verdict on the token: \(unavailable)")
            return
        }
        #expect(words.contains("503"), "\(words)")
        let notJSON = ServerCheck.verdict(.success(HTTPResponse(status: 200, body: Data("<html>".utf8))),
                                          mistake: noMistake, token: "t", now: Date())
        #expect(notJSON == .unexpected("HTTP 200 without the changes feed's JSON: check server.url"))
    }

    @Test("a set-up mistake the answer reveals comes before what its status would mean")
    func mistakeFirst() {
        let found = ServerCheck.verdict(.success(HTTPResponse(status: 401)), mistake: { _ in .setupMistake("not a recipes server") },
                                        token: "t", now: Date())
        #expect(found == .setupMistake("not a recipes server"))
    }
}
