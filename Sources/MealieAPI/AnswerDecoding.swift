import Foundation
import Transport

/// Decoding of a Mealie answer's JSON with every failure turned into a `MealieAnswerError` naming the field: the
/// shape first (HTML, not JSON), then `JSONDecoder`'s own checks (a missing key, a string where a number belongs, a
/// number beyond 64 bits), each reported with its path (`items[3].updatedAt`).
enum AnswerDecoding {
    /// `T` decoded from `response`'s body, or why it could not be.
    static func decode<T: Decodable>(_ type: T.Type, from response: HTTPResponse, request: String) -> Result<T, MealieAnswerError> {
        let fail = { (problem: MealieAnswerError.Problem) in
            Result<T, MealieAnswerError>.failure(MealieAnswerError(status: response.status, request: request, problem: problem))
        }
        let contentType = response.header("content-type")
        if contentType?.lowercased().contains("text/html") == true || startsWithAngle(response.body) {
            return fail(.htmlPage)
        }
        do {
            return .success(try JSONDecoder().decode(T.self, from: response.body))
        } catch let error as DecodingError {
            return fail(problem(error, contentType: contentType))
        } catch {
            return fail(.notJSON(contentType: contentType))
        }
    }

    /// Whether the body's first non-space byte is `<`: an HTML or XML page whatever its `Content-Type`.
    static func startsWithAngle(_ body: Data) -> Bool {
        body.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) == UInt8(ascii: "<")
    }

    private static func problem(_ error: DecodingError, contentType: String?) -> MealieAnswerError.Problem {
        switch error {
        case .keyNotFound(let key, let context):
            return .missingField(path: path(context.codingPath + [key]))
        case .typeMismatch(let type, let context):
            return .wrongType(path: path(context.codingPath), expected: describe(type))
        case .valueNotFound(let type, let context):
            return .wrongType(path: path(context.codingPath), expected: describe(type))
        case .dataCorrupted(let context):
            // With no path the bytes are not JSON (Foundation says so of a number that does not fit its type too,
            // hence `JSONCount`); with one, a value `JSONCount` refused, named in the description.
            return context.codingPath.isEmpty
                ? .notJSON(contentType: contentType)
                : .badValue(path: path(context.codingPath), value: context.debugDescription)
        @unknown default:
            return .notJSON(contentType: contentType)
        }
    }

    /// `items[3].updatedAt` from a coding path; `the answer` for the top level.
    static func path(_ keys: [any CodingKey]) -> String {
        var text = ""
        for key in keys {
            if let index = key.intValue, key.stringValue.hasPrefix("Index ") || key.stringValue == String(index) {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return text.isEmpty ? "the answer" : text
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type, is Int64.Type: "an integer"
        case is Double.Type: "a number"
        case is Bool.Type: "true or false"
        default:
            "\(type)".hasPrefix("Array") ? "a list" : "an object"
        }
    }
}

/// A JSON value that is a string or a number, read as text: Mealie's `image` cache key is written as `"142"` by
/// an upload, but a recipe imported from elsewhere may carry any scalar there.
struct ScalarText: Decodable {
    let text: String

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let string = try? container.decode(String.self) {
            text = string
        } else if let integer = try? container.decode(Int64.self) {
            text = String(integer)
        } else if let number = try? container.decode(Double.self), number.isFinite {
            text = String(number)
        } else {
            throw DecodingError.typeMismatch(String.self, .init(codingPath: decoder.codingPath, debugDescription: "not a string or a number"))
        }
    }
}

/// A count in a page of Mealie's list (`page`, `total`…): a whole number from 0 to a billion. Read as a `Double` first,
/// so that `4.5`, `-3` or `1e300` are reported with their field and value (`JSONDecoder` reports a number that does
/// not fit an `Int` as JSON that is not valid, without saying where).
struct JSONCount: Decodable {
    /// The most a count may be: far beyond any Mealie's recipes, far below an overflow.
    static let limit = 1_000_000_000

    let value: Int

    init(from decoder: any Decoder) throws {
        let number = try decoder.singleValueContainer().decode(Double.self)
        guard number.isFinite, number.rounded() == number, number >= 0, number <= Double(Self.limit) else {
            let text = number.isFinite && number.rounded() == number && abs(number) < 1e18 ? String(Int64(number)) : "\(number)"
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: text))
        }
        value = Int(number)
    }
}
