import Foundation
import HTTPTypes
import Testing
@testable import ReferenceServer

@Suite("Optional requests' decisions without I/O")
struct OptionalRequestDecisionTests {
    // MARK: RawJSON

    @Test("a value's range is the exact bytes it was written in, whitespace, escapes and unknown members included")
    func rawRanges() throws {
        let text = #"{ "writes" : [ {"document" : { "name" : "Soup \u00e9\n", "n": -1.5e3, "x":[true,false,null] } } ] }"#
        let bytes = Array(text.utf8)
        let root = try RawJSON.parse(bytes)
        guard case .array(let writes)? = root["writes"]?.value, let document = writes.first?["document"] else {
            Issue.record("no document in \(root)")
            return
        }
        try #require(document.range.clamped(to: bytes.indices) == document.range, "\(document.range) lies in the \(bytes.count) bytes")
        #expect(String(decoding: bytes[document.range], as: UTF8.self) == #"{ "name" : "Soup \u00e9\n", "n": -1.5e3, "x":[true,false,null] }"#)
        #expect(document["name"]?.value == .string("Soup é\n"))
        #expect(document["n"]?.value == .number("-1.5e3"))
    }

    @Test("strings decode every escape, surrogate pairs included, and keep UTF-8 as it is")
    func rawStrings() throws {
        let text = #"["a\"b\\c\/d\b\f\n\r\t", "\ud83c\udf45 🍅 番茄", ""]"#
        let parsed = try RawJSON.parse(Array(text.utf8))
        guard case .array(let elements) = parsed.value else {
            Issue.record("not an array: \(parsed)")
            return
        }
        #expect(elements.map(\.value) == [.string("a\"b\\c/d\u{08}\u{0C}\n\r\t"), .string("🍅 🍅 番茄"), .string("")])
        #expect(elements.map { String(decoding: Array(text.utf8)[$0.range], as: UTF8.self) }
                == [#""a\"b\\c\/d\b\f\n\r\t""#, #""\ud83c\udf45 🍅 番茄""#, #""""#])
    }

    @Test("what is not strict JSON is refused with the byte where it stops", arguments: [
        "", "{", "{\"a\":1,}", "[1,]", "{'a':1}", "01", "1.", "-", "1e", "\"\u{01}\"", "\"\\x\"", "\"\\ud800\"", "tru", "{} {}",
        "[\"\\u12\"]", "{\"a\" 1}", "nul",
    ])
    func rawRefuses(text: String) {
        #expect(throws: RawJSONError.self) { try RawJSON.parse(Array(text.utf8)) }
    }

    @Test("invalid UTF-8 in a string is refused")
    func rawRefusesBadUTF8() {
        #expect(throws: RawJSONError.self) { try RawJSON.parse([0x22, 0xC3, 0x28, 0x22]) }
    }

    @Test("nesting deeper than 256 is refused instead of exhausting the stack")
    func rawDepth() throws {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: RawJSONError.self) { try RawJSON.parse(Array(deep.utf8)) }
        let fine = String(repeating: "[", count: 256) + String(repeating: "]", count: 256)
        #expect(throws: Never.self) { try RawJSON.parse(Array(fine.utf8)) }
    }

    // MARK: Batch bodies

    static let id = "3F2504E0-4F89-11D3-9A0C-0305E82C3301"

    @Test("a batch body becomes its writes in order: the precondition read as the headers would be, the document's own bytes, deletes")
    func batchWrites() throws {
        let body = #"{"writes":[{"identifier":"\#(Self.id)","ifNoneMatch":"*","document":{"@type":"Recipe", "name":"A"}},"#
            + #"{"identifier":"\#(Self.id)","ifMatch":"\"3\"","delete":true},{"identifier":"\#(Self.id)","ifMatch":4,"document":{}},"#
            + #"{"identifier":"\#(Self.id)","document":[]},{"identifier":"\#(Self.id)","ifMatch":"W/\"2\"","document":{},"delete":false}]}"#
        let writes = try RecipeBatch.parse(Array(body.utf8))
        #expect(writes == [
            BatchWrite(identifier: Self.id, precondition: .new, operation: .put(document: Array(#"{"@type":"Recipe", "name":"A"}"#.utf8))),
            BatchWrite(identifier: Self.id, precondition: .basedOn(3), operation: .delete),
            BatchWrite(identifier: Self.id, precondition: .basedOn(4), operation: .put(document: Array("{}".utf8))),
            BatchWrite(identifier: Self.id, precondition: .none, operation: .put(document: Array("[]".utf8))),
            BatchWrite(identifier: Self.id, precondition: .basedOn(2), operation: .put(document: Array("{}".utf8))),
        ])
    }

    @Test("a body that is not the shape of a batch is a 400 naming the write at fault", arguments: [
        ("not json", "not valid JSON"),
        ("[]", "\"writes\" is an array"),
        (#"{"writes":{}}"#, "\"writes\" is an array"),
        (#"{"writes":[1]}"#, "Write 1 of the batch"),
        (#"{"writes":[{"identifier":"nope","document":{}}]}"#, "Write 1 of the batch: \"identifier\""),
        (#"{"writes":[{"identifier":"\#(id)","ifMatch":"\"1\"","ifNoneMatch":"*","document":{}}]}"#, "not both"),
        (#"{"writes":[{"identifier":"\#(id)","ifMatch":"*","document":{}}]}"#, "\"ifMatch\" must name one server version"),
        (#"{"writes":[{"identifier":"\#(id)","ifMatch":0,"document":{}}]}"#, "\"ifMatch\" must name one server version"),
        (#"{"writes":[{"identifier":"\#(id)","ifNoneMatch":"x","document":{}}]}"#, "\"ifNoneMatch\" must be \"*\""),
        (#"{"writes":[{"identifier":"\#(id)","ifMatch":"1"}]}"#, "give \"document\""),
        (#"{"writes":[{"identifier":"\#(id)","ifMatch":"1","delete":"yes"}]}"#, "give \"document\""),
        (#"{"writes":[{"identifier":"\#(id)","ifMatch":"1","delete":true,"document":{}}]}"#, "not both"),
        (#"{"writes":[{"identifier":"\#(id)","ifMatch":"1","delete":true},{"identifier":1}]}"#, "Write 2 of the batch"),
    ])
    func batchRefused(body: String, says: String) {
        do {
            _ = try RecipeBatch.parse(Array(body.utf8))
            Issue.record("accepted \(body)")
        } catch {
            #expect(error.status == .badRequest)
            #expect(error.message.contains(says), "\(error.message)")
        }
    }

    @Test("a batch of more than 100 writes is refused whole; 100 are accepted")
    func batchSize() throws {
        func body(_ count: Int) -> [UInt8] {
            Array((#"{"writes":["# + Array(repeating: #"{"identifier":"\#(Self.id)","delete":true}"#, count: count).joined(separator: ",") + "]}").utf8)
        }
        #expect(try RecipeBatch.parse(body(100)).count == 100)
        #expect(throws: ServerError.self) { try RecipeBatch.parse(body(101)) }
    }

    // MARK: Resumable uploads

    private static func fields(_ pairs: [String: String]) -> HTTPFields {
        var fields = HTTPFields()
        for (name, value) in pairs { fields[HTTPField.Name(name)!] = value }
        return fields
    }

    private static let part = ["Content-Type": "application/partial-upload", "Content-Length": "100", "Upload-Offset": "900",
                               "Upload-Length": "1000", "Upload-Complete": "?1"]

    @Test("a PATCH's headers read into the part it appends")
    func appendHeaders() throws {
        #expect(try UploadAppend.parse(Self.fields(Self.part), maxImageBytes: 1000)
                == UploadAppend(offset: 900, length: 1000, complete: true, partLength: 100))
        var more = Self.part
        more["Upload-Complete"] = "?0"
        more["Content-Length"] = "50"
        #expect(try UploadAppend.parse(Self.fields(more), maxImageBytes: 1000)
                == UploadAppend(offset: 900, length: 1000, complete: false, partLength: 50))
    }

    @Test("a PATCH whose headers are missing, malformed or inconsistent is refused with the status that says which", arguments: [
        ("Content-Type", "image/png", 415), ("Content-Length", nil, 411), ("Upload-Offset", nil, 400), ("Upload-Offset", "-1", 400),
        ("Upload-Offset", "1e3", 400), ("Upload-Length", nil, 400), ("Upload-Length", "1001", 413), ("Upload-Complete", nil, 400),
        ("Upload-Complete", "true", 400), ("Upload-Offset", "901", 400), ("Upload-Offset", "800", 400),
        ("Upload-Offset", "9223372036854775807", 400),
    ] as [(String, String?, Int)])
    func appendHeadersRefused(name: String, value: String?, status: Int) {
        var headers = Self.part
        headers[name] = value
        do {
            _ = try UploadAppend.parse(Self.fields(headers), maxImageBytes: 1000)
            Issue.record("accepted \(headers)")
        } catch {
            #expect(error.status.code == status, "\(error.message)")
        }
    }

    @Test("a PATCH is decided from the stored image, the partial kept, its length and its offset, in that order", arguments: [
        (true, nil, UploadAppendDecision.alreadyStored),
        (true, (500, 1000), .alreadyStored),
        (false, nil, .noUpload),
        (false, (900, 2000), .lengthMismatch(kept: 2000)),
        (false, (500, 1000), .offsetMismatch(kept: 500)),
        (false, (900, 1000), .append),
    ] as [(Bool, (Int64, Int64)?, UploadAppendDecision)])
    func appendDecision(stored: Bool, partial: (Int64, Int64)?, expected: UploadAppendDecision) {
        let append = UploadAppend(offset: 900, length: 1000, complete: true, partLength: 100)
        #expect(UploadAppendDecision.decide(append, imageStored: stored, partial: partial.map { (offset: $0.0, length: $0.1) }) == expected)
    }

    // MARK: Features

    @Test("--features reads all, none or a list of names; anything else is nil", arguments: [
        ("all", Optional(ServerFeature.all)), ("none", Optional(Set<ServerFeature>())),
        ("images-missing", Optional(Set([ServerFeature.imagesMissing]))),
        ("recipes-batch, resumable-images", Optional(Set([ServerFeature.recipesBatch, .resumableImages]))),
        ("batch", nil), ("", nil), ("all,none", nil),
    ] as [(String, Set<ServerFeature>?)])
    func featureList(text: String, expected: Set<ServerFeature>?) {
        #expect(ServerFeature.parseList(text) == expected)
    }

    @Test("the preflight refuses optional requests' heads as their routes will, and leaves a turned-off one to the router", arguments: [
        ("POST", "/v1/recipes/batch", ["Content-Type": "text/plain", "Content-Length": "10"], ServerFeature.all, HTTPResponse.Status?.some(.unsupportedMediaType)),
        ("POST", "/v1/recipes/batch", ["Content-Type": "application/json", "Content-Length": "9000000"], ServerFeature.all, .some(.contentTooLarge)),
        ("POST", "/v1/recipes/batch", ["Content-Type": "application/json", "Content-Length": "9000"], ServerFeature.all, nil),
        ("POST", "/v1/images/missing", ["Content-Type": "application/json", "Content-Length": "300000"], ServerFeature.all, .some(.contentTooLarge)),
        ("POST", "/v1/images/missing", ["Content-Type": "application/json", "Content-Length": "300000"], [], nil),
        ("PATCH", "/v1/images/abc", ["Content-Type": "application/partial-upload", "Content-Length": "100", "Upload-Offset": "0",
                                     "Upload-Length": "5000", "Upload-Complete": "?1"], ServerFeature.all, .some(.contentTooLarge)),
        ("PATCH", "/v1/images/abc", ["Content-Type": "application/partial-upload", "Content-Length": "100", "Upload-Offset": "900",
                                     "Upload-Length": "1000", "Upload-Complete": "?1"], ServerFeature.all, nil),
        ("PATCH", "/v1/images/abc", ["Content-Type": "image/png", "Content-Length": "100"], [], nil),
    ] as [(String, String, [String: String], Set<ServerFeature>, HTTPResponse.Status?)])
    func preflight(method: String, path: String, headers: [String: String], features: Set<ServerFeature>, expected: HTTPResponse.Status?) {
        let preflight = RequestPreflight(token: nil, maxImageBytes: 1000, features: features)
        var request = HTTPRequest(method: HTTPRequest.Method(method)!, scheme: "http", authority: "127.0.0.1", path: path)
        request.headerFields = Self.fields(headers)
        #expect(preflight.refusal(request) == expected)
    }
}
