import Foundation

/// One HTTP answer, whatever its status; header lookup is case-insensitive.
public struct HTTPResponse: Sendable, Equatable {
    /// The status code of the final answer (after any `100 Continue`).
    public var status: Int
    /// The body (empty for `HEAD`).
    public var body: Data
    /// The headers, keyed by lower-cased name; repeated headers are joined with ", ".
    public private(set) var headers: [String: String]

    /// Creates an answer; header names are matched case-insensitively afterwards.
    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.body = body
        var folded: [String: String] = [:]
        for (name, value) in headers {
            let key = name.lowercased()
            folded[key] = folded[key].map { "\($0), \(value)" } ?? value
        }
        self.headers = folded
    }

    /// An answer whose header names the transfer already lower-cased and whose repeats it already joined with ", "
    /// as it received them: folding them a second time was a hash table built twice per request.
    init(status: Int, foldedHeaders: [String: String], body: Data) {
        self.status = status
        self.body = body
        self.headers = foldedHeaders
    }

    /// The value of the header `name` (any case), or nil when the answer does not carry it.
    public func header(_ name: String) -> String? {
        headers[name.lowercased()]
    }

    /// The server's error message from a contract error body `{"error":…, "message":…}`, if there is one.
    public var serverMessage: String? {
        guard !body.isEmpty,
              let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any]
        else { return nil }
        if let message = object["message"] as? String, !message.isEmpty { return message }
        return object["error"] as? String
    }
}
