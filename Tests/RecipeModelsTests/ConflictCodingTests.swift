import Foundation
import Testing
@testable import RecipeModels

@Suite("Conflicts as the store keeps them and as status --json prints them")
struct ConflictCodingTests {
    static let conflicts: [FieldConflict] = [
        FieldConflict(field: .title, base: .text("Soup"), mine: .text("Stew"), theirs: .text("Broth \"2\"")),
        FieldConflict(field: .image, base: .absent, mine: .image(TestImages.localA), theirs: .image(TestImages.serverB)),
        FieldConflict(field: .ingredient(3), base: .text("b"), mine: .absent, theirs: .text("B")),
        FieldConflict(field: .step(2), base: .elements(["x", "y"]), mine: .elements([]), theirs: .elements(["X"])),
    ]

    @Test("the stored form is one stable JSON text with sorted keys")
    func storedText() {
        let a = TestImages.shaA
        let b = TestImages.shaB
        #expect(RecipeConflict.fields(Self.conflicts).storedJSON == """
            {"fields":[\
            {"base":{"text":"Soup"},"field":"title","mine":{"text":"Stew"},"theirs":{"text":"Broth \\"2\\""}},\
            {"base":null,"field":"image","mine":{"image":{"bytes":1234,"file":"\(a).jpg","format":"jpeg","sha256":"\(a)"}},\
            "theirs":{"image":{"sha256":"\(b)","url":"http://127.0.0.1:8080/v1/images/\(b)"}}},\
            {"base":{"text":"b"},"field":"ingredient 3","mine":null,"theirs":{"text":"B"}},\
            {"base":{"elements":["x","y"]},"field":"step 2","mine":{"elements":[]},"theirs":{"elements":["X"]}}\
            ],"kind":"fields"}
            """)
        #expect(RecipeConflict.deletedOnServer.storedJSON == #"{"kind":"deletedOnServer"}"#)
        #expect(RecipeConflict.deletedHere.storedJSON == #"{"kind":"deletedHere"}"#)
    }

    @Test("every kind of conflict reads back as it was stored, images with where their bytes are")
    func roundTrip() throws {
        for conflict in [RecipeConflict.fields(Self.conflicts), .fields([]), .deletedOnServer, .deletedHere] {
            #expect(try RecipeConflict(storedJSON: conflict.storedJSON) == conflict)
        }
        guard case .fields(let read) = try RecipeConflict(storedJSON: RecipeConflict.fields(Self.conflicts).storedJSON)
        else { return }
        try #require(read.count > 1)
        #expect(read[1].mine == .image(TestImages.localA))
        if case .image(let mine) = read[1].mine, case .image(let theirs) = read[1].theirs {
            #expect(mine.source == TestImages.localA.source)
            #expect(theirs.source == TestImages.serverB.source)
        } else {
            Issue.record("the image conflict did not read back as images")
        }
        let noFile = RecipeConflict.fields([
            FieldConflict(field: .image, base: .image(TestImages.localB), mine: .absent, theirs: .absent),
        ])
        guard case .fields(let local) = try RecipeConflict(storedJSON: noFile.storedJSON),
            case .image(let image)? = local.first?.base
        else {
            Issue.record("a local image without a file did not read back")
            return
        }
        #expect(image.localReference == TestImages.localB.localReference)
    }

    @Test("a stored text that is not a conflict is refused as unreadable, saying what is wrong")
    func unreadable() {
        let sha = TestImages.shaA
        let texts = [
            "", "[]", #"{"kind":"merged"}"#, #"{"kind":"fields"}"#,
            #"{"kind":"fields","fields":[{"field":"colour","base":null,"mine":null,"theirs":null}]}"#,
            #"{"kind":"fields","fields":[{"field":"title","base":{"number":1},"mine":null,"theirs":null}]}"#,
            #"{"kind":"fields","fields":[{"field":"image","base":{"image":{"sha256":"abc","url":"x"}},"mine":null,"theirs":null}]}"#,
            #"{"kind":"fields","fields":[{"field":"image","base":{"image":{"sha256":"\#(sha)","url":"http://h/v1/images/\#(TestImages.shaB)"}},"mine":null,"theirs":null}]}"#,
        ]
        for text in texts {
            #expect {
                try RecipeConflict(storedJSON: text)
            } throws: { error in
                guard case .unreadable(let reason)? = error as? ConflictError else { return false }
                return !reason.isEmpty
            }
        }
        #expect(ConflictError.unreadable("x").errorDescription
            == "the stored conflicts cannot be read (x); resolve the recipe with --mine or --theirs")
    }

    @Test("status --json entries: strings, arrays for a run, null for removed or absent, the SHA-256 for an image")
    func statusEntries() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        func json(_ conflict: RecipeConflict) throws -> String {
            String(decoding: try encoder.encode(conflict.statusEntries), as: UTF8.self)
        }
        #expect(try json(.fields(Self.conflicts)) == """
            [{"field":"title","mine":"Stew","theirs":"Broth \\"2\\""},\
            {"field":"image","mine":"\(TestImages.shaA)","theirs":"\(TestImages.shaB)"},\
            {"field":"ingredient 3","mine":null,"theirs":"B"},\
            {"field":"step 2","mine":[],"theirs":["X"]}]
            """)
        #expect(try json(.fields([])) == "[]")
        #expect(try json(.deletedOnServer) == #"[{"field":"recipe","mine":"changed","theirs":null}]"#)
        #expect(try json(.deletedHere) == #"[{"field":"recipe","mine":null,"theirs":"changed"}]"#)
    }
}
