import Foundation
import Transport

/// The answers of a real Mealie 2.0 captured by `Fixtures/capture.py`, read back as `HTTPResponse`s.
enum Fixture {
    /// The captured answer `name` (`Fixtures/<name>.json`).
    static func response(_ name: String) throws -> HTTPResponse {
        let url = directory.appendingPathComponent(name + ".json")
        let record = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any] ?? [:]
        let status = record["status"] as? Int ?? 0
        let headers = record["headers"] as? [String: String] ?? [:]
        let body = Data((record["body"] as? String ?? "").utf8)
        return HTTPResponse(status: status, headers: headers, body: body)
    }

    /// The body of answer `name` as a JSON object, to make variants of it.
    static func object(_ name: String) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: try response(name).body) as? [String: Any] ?? [:]
    }

    /// An answer with `status` and `object` as its JSON body.
    static func json(_ status: Int, _ object: Any) throws -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json"],
                     body: try JSONSerialization.data(withJSONObject: object, options: [.fragmentsAllowed]))
    }

    /// An answer with `status` and `text` as its body, as it is.
    static func raw(_ status: Int, _ text: String, contentType: String? = "application/json") -> HTTPResponse {
        HTTPResponse(status: status, headers: contentType.map { ["Content-Type": $0] } ?? [:], body: Data(text.utf8))
    }

    static var directory: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    }
}
