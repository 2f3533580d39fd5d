import Foundation
import Transport

/// An answer that is not what Mealie 2.x sends for the request: a captive portal, a proxy, another server at
/// `server.url`, or a Mealie whose data the sync cannot use (a page out of order, an impossible number). Nothing is
/// recorded from such an answer; the message says what was wrong and what to check.
public struct MealieAnswerError: Error, Sendable, Equatable, LocalizedError {
    /// What was wrong with the answer.
    public enum Problem: Error, Sendable, Equatable {
        /// An HTML page (by its `Content-Type`, or a body that starts with `<`).
        case htmlPage
        /// A body that is not JSON; `contentType` as the answer gave it, if it did.
        case notJSON(contentType: String?)
        /// A field the answer must carry is absent (`path` as in `items[3].updatedAt`).
        case missingField(path: String)
        /// A field of the wrong JSON type.
        case wrongType(path: String, expected: String)
        /// A field whose value cannot be right: an id that is no UUID, an impossible date, a negative count.
        case badValue(path: String, value: String)
        /// Values that contradict each other or the request: a page out of order, more items than asked for.
        case inconsistent(String)
        /// A status Mealie does not give for this request; `mealieSays` is the message of Mealie's error body.
        case unexpectedStatus(expected: String, mealieSays: String?)
    }

    /// The answer's status.
    public var status: Int
    /// What the answer was to, in words (`the recipe list`).
    public var request: String
    /// What was wrong.
    public var problem: Problem

    /// Creates the description of an unexpected answer.
    public init(status: Int, request: String, problem: Problem) {
        self.status = status
        self.request = request
        self.problem = problem
    }

    /// One line: what came back, and what to do.
    public var errorDescription: String? {
        let what: String
        switch problem {
        case .htmlPage:
            what = "an HTML page instead of Mealie's JSON: a captive portal or a proxy? (log in to the network, or check server.url)"
        case .notJSON(let contentType):
            what = "something that is not Mealie's JSON (\(contentType.map { MealieErrorBody.printable($0) } ?? "no Content-Type")); "
                + "check that server.url is the Mealie's base URL"
        case .missingField(let path):
            what = "JSON without \(path), which Mealie 2.x always sends; check that server.url is a Mealie 2.x"
        case .wrongType(let path, let expected):
            what = "JSON whose \(path) is not \(expected) as in Mealie 2.x; check that server.url is a Mealie 2.x"
        case .badValue(let path, let value):
            what = "JSON whose \(path) is \(MealieErrorBody.printable(value)), which cannot be right; check that server.url is a Mealie 2.x"
        case .inconsistent(let detail):
            what = "an answer that contradicts itself or the request (\(detail)); try again, and check that server.url is a Mealie 2.x"
        case .unexpectedStatus(let expected, let says):
            what = "a status where Mealie answers \(expected)" + (says.map { " (Mealie says: \($0))" } ?? "")
                + "; check that server.url is a Mealie 2.x"
        }
        return "Mealie answered \(request) with HTTP \(status) and \(what)"
    }

    /// The same line as `errorDescription`.
    public var description: String { errorDescription ?? "" }
}

/// What Mealie's error bodies say: `{"detail":{"message":…,"exception":…}}` from its own checks, `{"detail":"…"}` from
/// the framework (a refused token, a bad `queryFilter`), `{"detail":[{"loc":[…],"msg":…}]}` from validation, or the
/// plain text `Internal Server Error`.
public enum MealieErrorBody {
    /// The message of Mealie's error body, printable and at most 300 characters; nil when the body says nothing
    /// readable (empty, an HTML page, a long text).
    public static func message(in body: Data) -> String? {
        if let object = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]),
           let text = detail(object) {
            return text.isEmpty ? nil : printable(text, limit: 300)
        }
        guard body.count <= 200, let text = String(data: body, encoding: .utf8) else { return nil }
        let line = printable(text, limit: 300)
        return line.isEmpty || line.hasPrefix("<") ? nil : line
    }

    private static func detail(_ object: Any) -> String? {
        guard let dictionary = object as? [String: Any], let detail = dictionary["detail"] else { return nil }
        if let text = detail as? String { return text }
        if let inner = detail as? [String: Any] {
            let message = inner["message"] as? String
            let exception = inner["exception"] as? String
            switch (message, exception) {
            case (let message?, let exception?) where !exception.isEmpty: return "\(message) (\(exception))"
            case (let message?, _): return message
            case (nil, let exception?): return exception
            case (nil, nil): return nil
            }
        }
        if let problems = detail as? [Any] {
            let lines = problems.compactMap { item -> String? in
                guard let problem = item as? [String: Any], let message = problem["msg"] as? String else { return nil }
                let location = (problem["loc"] as? [Any])?.map { "\($0)" }.joined(separator: ".")
                return location.map { "\($0): \(message)" } ?? message
            }
            return lines.isEmpty ? nil : lines.joined(separator: "; ")
        }
        return nil
    }

    /// `text` with control characters replaced by spaces, trimmed, cut to `limit` characters (with "…").
    static func printable(_ text: String, limit: Int = 120) -> String {
        let scalars = text.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : $0 }
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars.prefix(limit))
        let cut = String(view).trimmingCharacters(in: .whitespaces)
        return scalars.count > limit ? cut + "…" : cut
    }
}
