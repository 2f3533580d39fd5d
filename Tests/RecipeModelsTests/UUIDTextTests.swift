import Foundation
import Testing
@testable import RecipeModels

@Suite("UUIDs as text: the lowercase form the contract uses, parsed back")
struct UUIDTextTests {
    @Test("lowercasedString is Foundation's uuidString in lowercase, for fixed and random UUIDs")
    func lowercaseMatchesFoundation() throws {
        let fixed = try [
            #require(UUID(uuidString: "00000000-0000-0000-0000-000000000000")),
            #require(UUID(uuidString: "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF")),
            #require(UUID(uuidString: "0F8FAD5B-D9CB-469F-A165-70867728950E")),
        ]
        for uuid in fixed + (0..<500).map({ _ in UUID() }) {
            #expect(uuid.lowercasedString == uuid.uuidString.lowercased())
            #expect(uuid.lowercasedString.utf8.count == 36)
        }
    }

    @Test("init(text:) reads either case and round-trips; anything but 8-4-4-4-12 hex digits is nil")
    func parsing() throws {
        for uuid in (0..<500).map({ _ in UUID() }) {
            #expect(UUID(text: uuid.lowercasedString) == uuid)
            #expect(UUID(text: uuid.uuidString) == uuid)
        }
        let mixed = "0f8fAD5B-d9cb-469F-a165-70867728950e"
        #expect(UUID(text: mixed) == UUID(uuidString: mixed))
        for bad in [
            "", "0f8fad5b-d9cb-469f-a165-70867728950", "0f8fad5b-d9cb-469f-a165-70867728950e0",
            "0f8fad5bd-9cb-469f-a165-70867728950e", "0f8fad5b-d9cb-469f-a165_70867728950e",
            "0g8fad5b-d9cb-469f-a165-70867728950e", "{f8fad5b-d9cb-469f-a165-70867728950}",
            "0f8fad5b-d9cb-469f-a165-70867728950é",
        ] {
            #expect(UUID(text: bad) == nil, "\(bad)")
            #expect(UUID(uuidString: bad) == nil, "Foundation agrees about \(bad)")
        }
    }
}
