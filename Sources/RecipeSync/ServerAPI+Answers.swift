import Foundation
import RecipeModels
import Transport

/// A `2xx` answer that is not the acknowledgement the contract promises for the request: a captive portal, a proxy
/// or a server of something else answering in the recipe server's place. Nothing is marked synced on such an answer;
/// the step fails as transient and is tried again later.
public struct UnexpectedAnswer: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was wrong with the answer.
    public enum Problem: Sendable, Equatable {
        /// An HTML page (by its `Content-Type`, or a body that starts with `<`).
        case htmlPage
        /// A body that is not one JSON object; `contentType` as the answer gave it, if it did.
        case notJSON(contentType: String?)
        /// A JSON object without the fields that acknowledge this request (or with other values in them).
        case notAcknowledging(what: String)
        /// An image URL that is not `http(s)://…/<sha256>`.
        case badImageURL(String)
        /// A status the contract does not give for this request; `expected` names the one it gives.
        case unexpectedStatus(expected: String)
    }

    /// The answer's status.
    public var status: Int
    /// What was wrong.
    public var problem: Problem

    /// Creates the description of an unexpected answer.
    public init(status: Int, problem: Problem) {
        self.status = status
        self.problem = problem
    }

    public var description: String {
        let what: String
        switch problem {
        case .htmlPage:
            what = "an HTML page instead of the recipe server's answer: a captive portal or a proxy? (log in to the "
                + "network, or check server.url)"
        case .notJSON(let contentType):
            what = "something that is not the recipe server's JSON answer (\(contentType.map(Self.printable) ?? "no Content-Type")); check server.url"
        case .notAcknowledging(let fields):
            what = "JSON that does not name \(fields) as the recipe server's answer does; check server.url"
        case .badImageURL(let url):
            what = "the image URL \"\(Self.printable(url))\", not an http(s) URL ending in the image's SHA-256; check server.url"
        case .unexpectedStatus(let expected):
            what = "an answer where the recipe server answers \(expected); check server.url"
        }
        return "the server answered HTTP \(status) with \(what); nothing was marked synced"
    }

    /// How a step fails on this answer. An HTML page where the server's answer was expected is a captive portal's or
    /// a proxy's sign-in page, like a redirect to one: not the server answering, so the recipe stays due with no
    /// attempt counted and the next run sends it (counted, a café's portal would have failed every recipe for good
    /// after the retry limit's runs). Any other answer may be a server's fault that repeats: transient, counted.
    var stepKind: StepFailure.Kind {
        problem == .htmlPage ? .later : .transient(retryAfter: nil)
    }

    /// `text` cut to 120 characters with control characters replaced, for a message.
    static func printable(_ text: String) -> String {
        let cleaned = String(String.UnicodeScalarView(text.unicodeScalars.prefix(120).map { scalar in
            scalar.properties.generalCategory == .control ? "?" : scalar
        }))
        return text.unicodeScalars.count > 120 ? cleaned + "…" : cleaned
    }
}

extension ServerAPI {
    /// Whether a `HEAD /v1/images/{sha256}` answer says the server has the image: `200` with `ETag: "<sha256>"`,
    /// the header the contract's image answers carry. Any other `200` (a portal's page) proves nothing, and the
    /// image is uploaded instead, whose answer can be checked.
    public static func headConfirmsImage(_ response: HTTPResponse, sha256: String) -> Bool {
        guard response.status == 200, var tag = response.header("etag")?.trimmingCharacters(in: .whitespaces)
        else { return false }
        if tag.hasPrefix("W/") { tag.removeFirst(2) }
        return tag == "\"\(sha256)\""
    }

    /// The image URL that a `2xx` answer to `PUT /v1/images/{sha256}` acknowledges: its JSON names `sha256` and an
    /// absolute `http(s)` URL whose last path segment is `sha256` (the URL a pull downloads and checks the image by).
    public static func imageAcknowledgement(_ response: HTTPResponse, sha256: String) -> Result<String, UnexpectedAnswer> {
        let fields: [String: AnswerFields.Value]
        switch jsonFields(response) {
        case .success(let parsed): fields = parsed
        case .failure(let unexpected): return .failure(unexpected)
        }
        guard case .string(let answered)? = fields["sha256"], answered.lowercased() == sha256,
            case .string(let url)? = fields["url"]
        else {
            return .failure(UnexpectedAnswer(status: response.status, problem: .notAcknowledging(what: "the image's SHA-256 and URL")))
        }
        guard isImageURL(url, sha256: sha256) else {
            return .failure(UnexpectedAnswer(status: response.status, problem: .badImageURL(url)))
        }
        return .success(url)
    }

    /// Whether a `2xx` answer to `PUT /v1/recipes/{uuid}` acknowledges that recipe: its JSON names `uuid` as
    /// `identifier` and carries a `version`, which it returns (the caller compares it with the version sent).
    public static func recipeAcknowledgement(_ response: HTTPResponse, uuid: UUID) -> Result<Int64, UnexpectedAnswer> {
        let fields: [String: AnswerFields.Value]
        switch jsonFields(response) {
        case .success(let parsed): fields = parsed
        case .failure(let unexpected): return .failure(unexpected)
        }
        guard case .string(let identifier)? = fields["identifier"], identifier.lowercased() == uuid.lowercasedString,
            case .integer(let version)? = fields["version"]
        else {
            return .failure(UnexpectedAnswer(status: response.status, problem: .notAcknowledging(what: "this recipe's identifier and version")))
        }
        return .success(version)
    }

    /// Whether an answer to `DELETE /v1/recipes/{uuid}` says the recipe is gone: `204`, or a contract error body
    /// (`{"error":…}`) with `404` or `410` (it already was). Any other `2xx` is not the contract's answer.
    public static func deletionAcknowledgement(_ response: HTTPResponse) -> Result<Void, UnexpectedAnswer> {
        switch response.status {
        case 204:
            return .success(())
        case 404, 410:
            if case .success(let fields) = jsonFields(response), case .string? = fields["error"] { return .success(()) }
            return .failure(UnexpectedAnswer(status: response.status, problem: problem(of: response) ?? .notAcknowledging(what: "an error code")))
        default:
            return .failure(UnexpectedAnswer(status: response.status, problem: problem(of: response) ?? .unexpectedStatus(expected: "204")))
        }
    }

    /// What a `412` answer says the server has: `{"error":"stale","version":N,"deleted":…}`; nil when the body is not
    /// that (then the server's copy is read all the same).
    public static func staleVersion(inAnswer body: Data) -> Int64? {
        guard case .integer(let version)? = AnswerFields.parse(body)?["version"] else { return nil }
        return version
    }

    /// The tombstone's version a `412` answer names when the recipe was deleted on the server (`{"error":"stale",
    /// "version":N,"deleted":true}`); nil for any other body (then the server's copy is read).
    public static func staleTombstone(inAnswer body: Data) -> Int64? {
        // `AnswerFields` skips booleans; a 412 is rare enough to be parsed whole.
        guard let fields = AnswerFields.parse(body), case .string("stale")? = fields["error"],
            case .integer(let version)? = fields["version"],
            let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
            let deleted = object["deleted"] as? NSNumber, String(cString: deleted.objCType) == "c", deleted.boolValue
        else { return nil }
        return version
    }

    /// The version of a `410` answer to `GET /v1/recipes/{uuid}` (`{"error":"deleted","version":N}`), if it says one.
    public static func tombstoneVersion(inAnswer body: Data) -> Int64? {
        guard let fields = AnswerFields.parse(body), case .string("deleted")? = fields["error"],
            case .integer(let version)? = fields["version"]
        else { return nil }
        return version
    }

    /// Whether `url` is an absolute `http(s)` URL with a host whose last path segment is `sha256`: printable ASCII
    /// without spaces, no query, no fragment, no percent-escapes in that segment. Read from the bytes (every image
    /// upload's answer is checked; `URLComponents` cost more than the rest of the answer's reading).
    static func isImageURL(_ url: String, sha256: String) -> Bool {
        let bytes = Array(url.utf8)
        guard bytes.allSatisfy({ (0x21...0x7E).contains($0) && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") })
        else { return false }
        let afterScheme: Int
        if hasPrefix(bytes, "http://") {
            afterScheme = 7
        } else if hasPrefix(bytes, "https://") {
            afterScheme = 8
        } else {
            return false
        }
        guard let pathStart = bytes[afterScheme...].firstIndex(of: UInt8(ascii: "/")) else { return false }
        // The authority: [userinfo@]host[:port]; the host must not be empty.
        let authority = bytes[afterScheme..<pathStart]
        let hostStart = authority.lastIndex(of: UInt8(ascii: "@")).map { $0 + 1 } ?? afterScheme
        let host = bytes[hostStart..<pathStart]
        guard let first = host.first, first != UInt8(ascii: ":") else { return false }
        return RecipeImage(serverURL: url)?.sha256 == sha256
    }

    /// Whether `bytes` starts with `prefix`, in any case (`prefix` in lowercase ASCII).
    private static func hasPrefix(_ bytes: [UInt8], _ prefix: StaticString) -> Bool {
        let count = prefix.utf8CodeUnitCount
        guard bytes.count >= count else { return false }
        return prefix.withUTF8Buffer { wanted in zip(bytes, wanted).allSatisfy { lower($0) == $1 } }
    }

    /// Whether `text` contains `word` (lowercase ASCII), in any case.
    private static func contains(_ text: String, _ word: StaticString) -> Bool {
        let bytes = Array(text.utf8)
        return word.withUTF8Buffer { wanted in
            guard !wanted.isEmpty, bytes.count >= wanted.count else { return false }
            return (0...(bytes.count - wanted.count)).contains { start in
                wanted.indices.allSatisfy { lower(bytes[start + $0]) == wanted[$0] }
            }
        }
    }

    /// An ASCII letter in lowercase; any other byte as it is.
    private static func lower(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }

    /// The fields of an answer that is one JSON object, or why it is not.
    private static func jsonFields(_ response: HTTPResponse) -> Result<[String: AnswerFields.Value], UnexpectedAnswer> {
        if let problem = problem(of: response) { return .failure(UnexpectedAnswer(status: response.status, problem: problem)) }
        guard let fields = AnswerFields.parse(response.body) else {
            return .failure(UnexpectedAnswer(status: response.status, problem: .notJSON(contentType: response.header("content-type"))))
        }
        return .success(fields)
    }

    /// What is visibly wrong with an answer's form (an HTML page, a type that is not JSON), or nil.
    private static func problem(of response: HTTPResponse) -> UnexpectedAnswer.Problem? {
        let type = response.header("content-type")
        if let type, contains(type, "html") { return .htmlPage }
        if response.body.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) == UInt8(ascii: "<") { return .htmlPage }
        if let type, !contains(type, "json") { return .notJSON(contentType: type) }
        return nil
    }
}
