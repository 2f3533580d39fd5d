import Foundation
import NIOCore
import Testing
@testable import ReferenceServer

@Suite("JSON answers without I/O")
struct JSONAnswerTests {
    @Test("an answer is byte for byte what JSONSerialization writes with sorted keys and unescaped slashes (for lower camel case keys)", arguments: [
        "plain", "http://127.0.0.1:8080/v1/images/abc", "quote \" backslash \\ slash /", "line\nfeed\r\ttab",
        "\u{08}\u{0C}\u{00}\u{01}\u{1F}\u{7F}", "Crème brûlée 🍮 — 番茄汤", "",
    ])
    func matchesJSONSerialization(text: String) throws {
        let answer = JSONAnswer.object([
            "zeta": .string(text), "alpha": .integer(-42), "dateModified": .integer(Int64.max),
            "items": .array([.object(["b": .string(text), "a": .integer(0)]), .array([]), .object([:])]),
        ])
        let foundation: [String: Any] = [
            "zeta": text, "alpha": -42, "dateModified": Int64.max,
            "items": [["b": text, "a": 0] as [String: Any], [Any](), [String: Any]()] as [Any],
        ]
        let expected = try JSONSerialization.data(withJSONObject: foundation, options: [.sortedKeys, .withoutEscapingSlashes])
        var buffer = answer.buffer
        let written = buffer.readBytes(length: buffer.readableBytes) ?? []
        #expect(String(decoding: written, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(written)) as? [String: Any])
        #expect(parsed["zeta"] as? String == text)
    }

    @Test("a 412 body carries error, message, the version as a JSON number and deleted as a JSON boolean")
    func errorBody() throws {
        var body = ServerError.stale(version: 7, deleted: true).jsonBody()
        let text = body.readString(length: body.readableBytes) ?? ""
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(object["error"] as? String == "stale")
        #expect(object["message"] is String)
        #expect(text.contains(#""version":7"#) && text.contains(#""deleted":true"#))
        #expect(object.count == 4)
    }

    @Test("booleans, null and raw JSON (an inlined document) are written as they are")
    func booleansNullAndRaw() throws {
        let document = #"{"@type":"Recipe","name":"Soup \/ stew"}"#
        var buffer = JSONAnswer.object(["a": .bool(true), "b": .bool(false), "c": .null, "d": .raw(ByteBuffer(string: document))]).buffer
        let text = buffer.readString(length: buffer.readableBytes) ?? ""
        #expect(text == #"{"a":true,"b":false,"c":null,"d":"# + document + "}")
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect((parsed["d"] as? [String: Any])?["name"] as? String == "Soup / stew")
    }
}
