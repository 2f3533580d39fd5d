import Foundation

/// One write of a `POST /v1/recipes/batch` body: what its own `PUT` or `DELETE /v1/recipes/{uuid}` would carry.
struct BatchWrite: Sendable, Equatable {
    /// What the write does.
    enum Operation: Sendable, Equatable {
        /// Store this document: its bytes exactly as they stand in the batch body, as a `PUT` stores its body.
        case put(document: [UInt8])
        /// Delete the recipe, keeping a tombstone.
        case delete
    }

    /// The recipe UUID, as the path of its own request would name it.
    var identifier: String
    /// `ifMatch` / `ifNoneMatch`, read as the headers of its own request.
    var precondition: WritePrecondition
    /// The write.
    var operation: Operation
}

/// Reading a `POST /v1/recipes/batch` body into its writes: a pure function, tested from a table.
///
/// The body is `{"writes":[{"identifier":U,"ifMatch":"<base>"|"ifNoneMatch":"*","document":{…}|"delete":true}…]}`.
/// The shape of the batch is checked before any write is applied: a body that is not that shape is a `400` naming the
/// first write at fault, and nothing is written. What a write's own request would refuse only after reading its body
/// (a missing precondition, an invalid document) is that write's result instead.
enum RecipeBatch {
    /// The most writes one batch may carry.
    static let maxWrites = 100
    /// The largest batch body accepted.
    static let maxBytes = 8 << 20

    /// The writes of a batch body, in order.
    static func parse(_ bytes: [UInt8]) throws(ServerError) -> [BatchWrite] {
        let root: RawJSON
        do { root = try RawJSON.parse(bytes) } catch {
            throw .badBatch("The body is not valid JSON (\(error.description)); send {\"writes\":[…]}.")
        }
        guard case .object = root.value, let writesValue = root["writes"], case .array(let items) = writesValue.value else {
            throw .badBatch("The body must be a JSON object whose \"writes\" is an array: {\"writes\":[{\"identifier\":…}, …]}.")
        }
        guard items.count <= maxWrites else {
            throw .badBatch("A batch carries at most \(maxWrites) writes, not \(items.count); send the rest in another batch.")
        }
        var writes: [BatchWrite] = []
        for (index, item) in items.enumerated() {
            writes.append(try write(item, bytes: bytes, number: index + 1))
        }
        return writes
    }

    /// One write; `number` (1-based) names it in a message.
    private static func write(_ item: RawJSON, bytes: [UInt8], number: Int) throws(ServerError) -> BatchWrite {
        func fail(_ problem: String) -> ServerError { .badBatch("Write \(number) of the batch: \(problem)") }
        guard case .object = item.value else { throw fail("must be a JSON object {\"identifier\":…, …}.") }
        guard case .string(let identifier)? = item["identifier"]?.value, UUID(uuidString: identifier) != nil else {
            throw fail("\"identifier\" must be the recipe's UUID as a string, e.g. \"3F2504E0-4F89-11D3-9A0C-0305E82C3301\".")
        }
        let precondition: WritePrecondition
        switch (item["ifMatch"]?.value, item["ifNoneMatch"]?.value) {
        case (nil, nil):
            precondition = .none
        case (_?, _?):
            throw fail("give \"ifMatch\" or \"ifNoneMatch\", not both.")
        case (let ifMatch?, nil):
            guard let base = baseVersion(ifMatch) else {
                throw fail("\"ifMatch\" must name one server version, e.g. \"3\" (or \"\\\"3\\\"\", the ETag).")
            }
            precondition = .basedOn(base)
        case (nil, let ifNoneMatch?):
            guard case .string("*") = ifNoneMatch else { throw fail("\"ifNoneMatch\" must be \"*\", for a recipe new to the server.") }
            precondition = .new
        }
        let operation: BatchWrite.Operation
        switch (item["document"], item["delete"]?.value) {
        case (let document?, nil), (let document?, .bool(false)?):
            operation = .put(document: Array(bytes[document.range]))
        case (nil, .bool(true)?):
            operation = .delete
        case (_?, .bool(true)?):
            throw fail("give \"document\" (a PUT) or \"delete\": true (a DELETE), not both.")
        default:
            throw fail("give \"document\" (the recipe, as its PUT would send it) or \"delete\": true.")
        }
        return BatchWrite(identifier: identifier, precondition: precondition, operation: operation)
    }

    /// The base version of `ifMatch`: an ETag string (`"\"3\""`, `"3"`, `"W/\"3\""`) or a whole number >= 1.
    private static func baseVersion(_ value: RawJSON.Value) -> Int? {
        switch value {
        case .string(let text): return WritePrecondition.version(inETag: text)
        case .number(let text): return WritePrecondition.version(inETag: text)
        default: return nil
        }
    }
}

extension ServerError {
    /// 400: a batch body that is not the shape of a batch; nothing of it was applied.
    static func badBatch(_ message: String) -> ServerError { ServerError(status: .badRequest, code: "bad-request", message: message) }
}
