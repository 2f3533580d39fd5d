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

    @Test("an error body carries error, message and the extra members as JSON numbers")
    func errorBody() throws {
        var body = ServerError(status: .conflict, code: "stale-version", message: "Newer / stored.", extra: ["version": 7]).jsonBody()
        let object = try #require(try JSONSerialization.jsonObject(with: Data(body.readBytes(length: body.readableBytes) ?? [])) as? [String: Any])
        #expect(object["error"] as? String == "stale-version")
        #expect(object["message"] as? String == "Newer / stored.")
        #expect(object["version"] as? Int == 7)
        #expect(object.count == 3)
    }
}
