import HTTPTypes
import Testing
@testable import ReferenceServer

@Suite("Conditional write decisions (docs/http-api.md) without I/O")
struct WriteDecisionTests {
    static let doc: [UInt8] = Array(#"{"version":3}"#.utf8)
    static let other: [UInt8] = Array(#"{"version":3,"name":"x"}"#.utf8)

    @Test("PUT decisions, one row of section 3 each", arguments: [
        // precondition, body version, document, stored → decision
        (WritePrecondition.none, 1, doc, nil, RecipePutDecision.preconditionRequired),
        (.none, 3, doc, .live(version: 3, document: doc), .preconditionRequired),
        (.new, 1, doc, nil, .create(version: 1)),
        (.new, 2, doc, nil, .wrongVersion(expected: 1)),
        (.new, 1, other, .live(version: 1, document: doc), .stale(version: 1, deleted: false)),
        (.new, 1, doc, .live(version: 1, document: doc), .alreadyStored(version: 1)),
        (.new, 1, doc, .tombstone(version: 4), .stale(version: 4, deleted: true)),
        (.basedOn(2), 3, doc, .live(version: 2, document: other), .update(version: 3)),
        (.basedOn(2), 2, doc, .live(version: 2, document: other), .wrongVersion(expected: 3)),
        (.basedOn(2), 4, doc, .live(version: 2, document: other), .wrongVersion(expected: 3)),
        (.basedOn(2), 3, doc, .live(version: 3, document: doc), .alreadyStored(version: 3)),
        (.basedOn(2), 3, other, .live(version: 3, document: doc), .stale(version: 3, deleted: false)),
        (.basedOn(2), 3, doc, .live(version: 5, document: doc), .stale(version: 5, deleted: false)),
        (.basedOn(7), 8, doc, .live(version: 5, document: doc), .stale(version: 5, deleted: false)),
        (.basedOn(4), 5, doc, .tombstone(version: 4), .recreate(version: 5)),
        (.basedOn(3), 4, doc, .tombstone(version: 4), .stale(version: 4, deleted: true)),
        (.basedOn(2), 3, doc, nil, .stale(version: 0, deleted: false)),
    ] as [(WritePrecondition, Int, [UInt8], StoredRecipe?, RecipePutDecision)])
    func put(precondition: WritePrecondition, bodyVersion: Int, document: [UInt8], stored: StoredRecipe?, expected: RecipePutDecision) {
        #expect(RecipePutDecision.decide(precondition, bodyVersion: bodyVersion, document: document, stored: stored) == expected)
    }

    @Test("DELETE decisions", arguments: [
        (WritePrecondition.none, StoredRecipe?.some(.live(version: 2, document: doc)), RecipeDeleteDecision.preconditionRequired),
        (.new, .live(version: 2, document: doc), .preconditionRequired),
        (.basedOn(2), .live(version: 2, document: doc), .tombstone(version: 3)),
        (.basedOn(1), .live(version: 2, document: doc), .stale(version: 2)),
        (.basedOn(3), .live(version: 2, document: doc), .stale(version: 2)),
        (.basedOn(2), .tombstone(version: 3), .alreadyDeleted(version: 3)),
        (.basedOn(9), .tombstone(version: 3), .alreadyDeleted(version: 3)),
        (.basedOn(1), nil, .alreadyDeleted(version: nil)),
    ] as [(WritePrecondition, StoredRecipe?, RecipeDeleteDecision)])
    func delete(precondition: WritePrecondition, stored: StoredRecipe?, expected: RecipeDeleteDecision) {
        #expect(RecipeDeleteDecision.decide(precondition, stored: stored) == expected)
    }

    @Test("If-Match and If-None-Match are read as the contract writes them; anything else is refused", arguments: [
        ([:], WritePrecondition?.some(.none)),
        (["If-Match": "\"3\""], .some(.basedOn(3))),
        (["If-Match": "W/\"12\""], .some(.basedOn(12))),
        (["If-Match": " 7 "], .some(.basedOn(7))),
        (["If-None-Match": "*"], .some(.new)),
        (["If-Match": "*"], nil),
        (["If-Match": "\"0\""], nil),
        (["If-Match": "\"-1\""], nil),
        (["If-Match": "\"1\", \"2\""], nil),
        (["If-Match": "\"abc\""], nil),
        (["If-None-Match": "\"3\""], nil),
        (["If-Match": "\"3\"", "If-None-Match": "*"], nil),
    ] as [([String: String], WritePrecondition?)])
    func parse(headers: [String: String], expected: WritePrecondition?) throws {
        var fields = HTTPFields()
        for (name, value) in headers { fields[HTTPField.Name(name)!] = value }
        if let expected {
            #expect(try WritePrecondition.parse(fields) == expected)
        } else {
            #expect(throws: ServerError.self) { try WritePrecondition.parse(fields) }
        }
    }

    @Test("a page size is 100 when absent, at most 1000, and a whole number >= 1")
    func pageSize() throws {
        #expect(try ServerRoutes.pageSize(nil) == 100)
        #expect(try ServerRoutes.pageSize("7") == 7)
        #expect(try ServerRoutes.pageSize("5000") == 1000)
        for bad in ["0", "-3", "ten", "1.5"] { #expect(throws: ServerError.self) { try ServerRoutes.pageSize(bad) } }
    }
}
