import HTTPTestSupport
import Foundation
import RecipeModels
import Testing
import Transport
@testable import RecipeSync

/// The optional requests' answers read as plain functions, from tables: the server's features, the missing images, and
/// each write's result of a batch read exactly as its own request's answer is.
@Suite("Optional requests: features, missing images and each write's answer of a batch, from tables")
struct BatchAnswerTests {
    static let api = ServerAPI(baseURL: "http://127.0.0.1:9")!

    static func destination() throws -> HTTPDestination {
        HTTPDestination(
            api: api, client: try HTTPClient(configuration: HTTPClientConfiguration()),
            reachability: Reachability(probe: .constant(true), now: { Date() }), settings: SyncSettings(api: api))
    }

    static func json(_ status: Int, _ text: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: Data(text.utf8))
    }

    @Test("features: the names listed; none without features, for a list of something else or a body that is no object")
    func features() {
        let table: [(body: String, expected: ServerFeatures)] = [
            (#"{"status":"ok","server":"s","features":["images-missing","recipes-batch","resumable-images"]}"#,
             ServerFeatures(names: ["images-missing", "recipes-batch", "resumable-images"])),
            (#"{"status":"ok","server":"s","features":[]}"#, .none),
            (#"{"status":"ok","server":"s"}"#, .none),
            (#"{"features":"images-missing"}"#, .none),
            (#"{"features":["recipes-batch",7,null]}"#, ServerFeatures(names: ["recipes-batch"])),
            ("<html>portal</html>", .none),
        ]
        for row in table {
            #expect(ServerFeatures(healthAnswer: Data(row.body.utf8)) == row.expected, "\(row.body)")
        }
        let all = ServerFeatures(names: ["images-missing", "recipes-batch", "resumable-images"])
        #expect(all.imagesMissing && all.recipesBatch && all.resumableImages)
        #expect(!ServerFeatures.none.imagesMissing && !ServerFeatures.none.recipesBatch && !ServerFeatures.none.resumableImages)
    }

    @Test("missing images: one flag per name asked, in order; a name not asked about or no list is unexpected")
    func missing() {
        let (a, b) = (String(repeating: "a", count: 64), String(repeating: "b", count: 64))
        let table: [(body: String, asked: [String], expected: [Bool]?)] = [
            (#"{"missing":["\#(b)"]}"#, [a, b], [false, true]),
            (#"{"missing":[]}"#, [a, b], [false, false]),
            (#"{"missing":["\#(a)","\#(a)"]}"#, [a, a], [true, true]),
            (#"{"missing":["\#(b)"]}"#, [a], nil),
            (#"{"missing":[7]}"#, [a], nil),
            (#"{"absent":[]}"#, [a], nil),
        ]
        for row in table {
            let answer = try? ServerAPI.missingAnswer(Self.json(200, row.body), asked: row.asked).get()
            #expect(answer == row.expected, "\(row.body)")
        }
    }

    @Test("each write's status of a batch is read as its own PUT's answer: 201/200 written, 412 stale or gone, 422/428 refused, 5xx transient")
    func writeStatuses() throws {
        let destination = try Self.destination()
        let uuid = UUID()
        let id = uuid.lowercasedString
        let write = PreparedWrite(uuid: uuid, base: 4, version: 5, document: Data("{}".utf8))
        enum Expected: Equatable { case answer(WriteAnswer), failure(StepFailure.Kind) }
        let table: [(result: String, expected: Expected)] = [
            (#"{"identifier":"\#(id)","status":201,"version":5,"deleted":false}"#, .answer(.written(version: 5))),
            (#"{"identifier":"\#(id)","status":200,"version":5,"deleted":false}"#, .answer(.written(version: 5))),
            (#"{"identifier":"\#(id)","status":200,"version":9,"deleted":false}"#, .failure(.permanent)),
            (#"{"identifier":"\#(id)","status":412,"error":"stale","message":"m","version":6,"deleted":false}"#,
             .answer(.stale(copy: nil))),
            (#"{"identifier":"\#(id)","status":412,"error":"stale","message":"m","version":7,"deleted":true}"#,
             .answer(.gone(version: 7))),
            (#"{"identifier":"\#(id)","status":422,"error":"invalid","message":"its image is unknown"}"#,
             .answer(.refused("its image is unknown"))),
            (#"{"identifier":"\#(id)","status":428,"error":"precondition-required","message":"send If-Match"}"#,
             .answer(.refused("send If-Match"))),
            (#"{"identifier":"\#(id)","status":503,"error":"unavailable","message":"busy"}"#,
             .failure(.transient(retryAfter: nil))),
        ]
        for row in table {
            let answer = Self.json(200, #"{"results":[\#(row.result)]}"#)
            let result = try #require(try ServerAPI.batchResults(answer, writes: [.put(write)]).get().first)
            let got: Expected
            do {
                got = .answer(try destination.writeAnswer(result, to: write))
            } catch let failure as StepFailure {
                got = .failure(failure.kind)
            }
            switch (got, row.expected) {
            case (.answer(.refused(let words)), .answer(.refused(let expected))):
                #expect(words.contains(expected), "\(row.result): the server's message is kept (\(words))")
            default:
                #expect(got == row.expected, "\(row.result)")
            }
        }
    }

    @Test("deletions of a batch: 204 deleted (with or without a version), 412 stale")
    func deleteStatuses() throws {
        let destination = try Self.destination()
        let uuid = UUID()
        let id = uuid.lowercasedString
        let table: [(result: String, expected: DeleteAnswer)] = [
            (#"{"identifier":"\#(id)","status":204,"version":3,"deleted":true}"#, .deleted),
            (#"{"identifier":"\#(id)","status":204,"deleted":true}"#, .deleted),
            (#"{"identifier":"\#(id)","status":412,"error":"stale","version":6,"deleted":false}"#, .stale),
        ]
        for row in table {
            let answer = Self.json(200, #"{"results":[\#(row.result)]}"#)
            let result = try #require(try ServerAPI.batchResults(answer, writes: [.delete(uuid, base: 2)]).get().first)
            #expect(try destination.deleteAnswer(result) == row.expected, "\(row.result)")
        }
    }

    @Test("a batch answer is refused whole when it lacks a result, names another recipe or has no status")
    func malformedBatches() {
        let (one, two) = (UUID(), UUID())
        let writes: [BatchWrite] = [.delete(one, base: 1), .delete(two, base: 1)]
        let ok = #"{"identifier":"\#(one.lowercasedString)","status":204}"#
        let table: [String] = [
            #"{"results":[\#(ok)]}"#,
            #"{"results":[\#(ok),{"identifier":"\#(one.lowercasedString)","status":204}]}"#,
            #"{"results":[\#(ok),{"identifier":"\#(two.lowercasedString)"}]}"#,
            #"{"writes":[]}"#,
        ]
        for body in table {
            #expect((try? ServerAPI.batchResults(Self.json(200, body), writes: writes).get()) == nil, "\(body)")
        }
        let good = #"{"results":[\#(ok),{"identifier":"\#(two.lowercasedString)","status":412,"version":2,"deleted":false}]}"#
        #expect((try? ServerAPI.batchResults(Self.json(200, good), writes: writes).get())?.map(\.status) == [204, 412])
    }

    @Test("a batch request carries each write's precondition and document byte for byte; parts stay under the limit")
    func requestBody() throws {
        let (one, two) = (UUID(), UUID())
        let document = Data(#"{"@type":"Recipe","name":"soup \"x\""}"#.utf8)
        let request = Self.api.recipesBatch([
            .put(PreparedWrite(uuid: one, base: nil, version: 1, document: document)),
            .put(PreparedWrite(uuid: two, base: 4, version: 5, document: document)),
            .delete(one, base: 2),
        ])
        #expect(request.method == .post && request.url == "http://127.0.0.1:9/v1/recipes/batch")
        guard case .data(let body, "application/json") = request.body else {
            Issue.record("not a JSON body")
            return
        }
        let text = String(decoding: body, as: UTF8.self)
        #expect(text.contains(#""ifNoneMatch":"*","document":{"@type":"Recipe","name":"soup \"x\""}"#))
        let object = try #require(try JSONSerialization.jsonObject(with: body) as? [String: [[String: Any]]])
        let writes = try #require(object["writes"])
        try #require(writes.count == 3)
        #expect(writes[1]["ifMatch"] as? String == "4" && writes[1]["identifier"] as? String == two.lowercasedString)
        #expect(writes[2]["delete"] as? Bool == true && writes[2]["ifMatch"] as? String == "2")

        let big = Data(repeating: UInt8(ascii: " "), count: 1 << 20)
        let many = (0..<15).map { _ in BatchWrite.put(PreparedWrite(uuid: UUID(), base: nil, version: 1, document: big)) }
        #expect(HTTPDestination.parts(of: many).map(\.count) == [6, 6, 3], "6 MiB of documents a part at most")
    }
}
