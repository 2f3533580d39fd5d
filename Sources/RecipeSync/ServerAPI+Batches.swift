import Foundation
import RecipeModels
import Transport

/// A recipe write as one entry of `POST /v1/recipes/batch`: exactly what its own `PUT` or `DELETE` would send.
enum BatchWrite: Sendable {
    /// `PUT /v1/recipes/{uuid}` of the write's document, conditional on its base.
    case put(PreparedWrite)
    /// `DELETE /v1/recipes/{uuid}` conditional on `base`.
    case delete(UUID, base: Int64)

    var uuid: UUID {
        switch self {
        case .put(let write): write.uuid
        case .delete(let uuid, _): uuid
        }
    }
}

/// The optional requests of the contract (docs/http-api.md, "Optional requests") and what their answers mean: plain
/// functions, tested without a network.
extension ServerAPI {
    /// At most this many names per `POST /v1/images/missing`, and writes per `POST /v1/recipes/batch`.
    static let maxMissingQuery = 1000
    static let maxBatchWrites = 100
    /// The documents of one batch stay under this (the server takes 8 MiB a body; a write's own framing is small).
    static let maxBatchDocumentBytes = 6 << 20

    /// `GET /v1/health`: liveness, and the optional requests the server lists. On a connection of its own
    /// (`Connection: close`): a request that reused it and lost its answer would be sent again by libcurl at once,
    /// unseen by the retry policy, where a run's first request otherwise goes on a fresh connection.
    func health() -> HTTPRequest {
        HTTPRequest(method: .get, url: "\(baseURL)/v1/health", headers: ["Connection": "close"],
                    answerDeadline: Self.answerDeadline)
    }

    /// `POST /v1/images/missing` asking about `images` (SHA-256s, at most `maxMissingQuery`).
    func missingImages(_ images: [String]) -> HTTPRequest {
        let body = try? JSONSerialization.data(withJSONObject: ["sha256": images])
        var request = HTTPRequest(method: .post, url: "\(baseURL)/v1/images/missing",
                                  body: .data(body ?? Data(), contentType: "application/json"),
                                  answerDeadline: Self.answerDeadline)
        request.startsAhead = true   // many chains wait for its answer
        return request
    }

    /// `POST /v1/recipes/batch` of `writes` (at most `maxBatchWrites`), each document as its bytes stand in the outbox.
    func recipesBatch(_ writes: [BatchWrite]) -> HTTPRequest {
        var body = Data(#"{"writes":["#.utf8)
        for (index, write) in writes.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body.append(contentsOf: Data(#"{"identifier":"\#(write.uuid.lowercasedString)","#.utf8))
            switch write {
            case .put(let prepared):
                let precondition = prepared.base.map { #""ifMatch":"\#($0)","# } ?? #""ifNoneMatch":"*","#
                body.append(contentsOf: Data(precondition.utf8))
                body.append(contentsOf: Data(#""document":"#.utf8))
                body.append(prepared.document)
            case .delete(_, let base):
                body.append(contentsOf: Data(#""ifMatch":"\#(base)","delete":true"#.utf8))
            }
            body.append(UInt8(ascii: "}"))
        }
        body.append(contentsOf: Data("]}".utf8))
        var request = HTTPRequest(method: .post, url: "\(baseURL)/v1/recipes/batch",
                                  body: .data(body, contentType: "application/json"), answerDeadline: Self.answerDeadline)
        request.startsAhead = true   // many chains wait for its answer
        return request
    }

    /// Which of `asked` a `200 {"missing":[…]}` answer says the server lacks, one flag per name asked; an answer that
    /// is not that, or names an image not asked about, is unexpected.
    static func missingAnswer(_ response: HTTPResponse, asked: [String]) -> Result<[Bool], UnexpectedAnswer> {
        guard let object = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any],
            let listed = object["missing"] as? [Any]
        else {
            return .failure(UnexpectedAnswer(status: response.status, problem: .notAcknowledging(what: "the list of missing images")))
        }
        let missing = Set(listed.compactMap { $0 as? String })
        guard listed.allSatisfy({ $0 is String }), missing.isSubset(of: asked) else {
            return .failure(UnexpectedAnswer(status: response.status, problem: .notAcknowledging(what: "only images it was asked about")))
        }
        return .success(asked.map(missing.contains))
    }

    /// Each write's result of a `200 {"results":[…]}` answer to `recipesBatch(writes)`, as the answer its own request
    /// would have had: its status, and the result's members as the body (`identifier`, `version`, `error`,
    /// `message`, `deleted`), so that it is read exactly as that request's answer is. One result per write, in order,
    /// each naming its write's recipe; anything else is unexpected.
    static func batchResults(_ response: HTTPResponse, writes: [BatchWrite]) -> Result<[HTTPResponse], UnexpectedAnswer> {
        guard let object = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any],
            let results = object["results"] as? [[String: Any]], results.count == writes.count
        else {
            return .failure(UnexpectedAnswer(status: response.status, problem: .notAcknowledging(what: "one result for each write")))
        }
        var answers: [HTTPResponse] = []
        for (result, write) in zip(results, writes) {
            guard let status = ServerInteger.read(result["status"]), (100...599).contains(status),
                (result["identifier"] as? String)?.lowercased() == write.uuid.lowercasedString,
                let body = try? JSONSerialization.data(withJSONObject: result.filter { $0.key != "status" })
            else {
                return .failure(UnexpectedAnswer(status: response.status, problem: .notAcknowledging(what: "each write's recipe and status")))
            }
            answers.append(HTTPResponse(status: Int(status), headers: ["Content-Type": "application/json"], body: body))
        }
        return .success(answers)
    }
}
