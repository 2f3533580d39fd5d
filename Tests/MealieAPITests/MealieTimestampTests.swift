import MealieAPI
import Testing

@Suite("MealieTimestamp: Mealie's updatedAt read and written to the microsecond")
struct MealieTimestampTests {
    @Test("Every form Mealie writes is read to the microsecond", arguments: [
        ("2026-11-27T10:15:56.212913Z", Int64(1_795_774_556_212_913)), // a single recipe
        ("2026-11-27T10:15:56.212913+00:00", 1_795_774_556_212_913),   // a list item
        ("2026-11-27T10:15:56Z", 1_795_774_556_000_000),               // zero microseconds: no fraction
        ("2026-11-27T10:15:56+00:00", 1_795_774_556_000_000),
        ("2026-11-27T11:15:56.212913+01:00", 1_795_774_556_212_913),   // another offset
        ("2026-11-27T05:45:56.000001-04:30", 1_795_774_556_000_001),
        ("2026-11-27 10:15:56.4Z", 1_795_774_556_400_000),             // a space, fewer digits
        ("1970-01-01T00:00:00Z", 0),
        ("1969-12-31T23:59:59.999999Z", -1),
        ("2024-02-29T00:00:00Z", 1_709_164_800_000_000),
        ("0001-01-01T00:00:00Z", -62_135_596_800_000_000),
        ("9999-12-31T23:59:59.999999Z", 253_402_300_799_999_999),
    ])
    func reads(text: String, microseconds: Int64) {
        #expect(MealieTimestamp(parsing: text)?.microseconds == microseconds)
    }

    @Test("Anything else is refused, never guessed", arguments: [
        "", "2026-11-27", "2026-11-27T10:15:56", "2026-11-27T10:15:56.212913", // no offset
        "2026-11-27T10:15:56.2129134Z",                                         // seven digits: a precision lost
        "2026-11-27T10:15:56.Z", "2026-13-01T00:00:00Z", "2026-02-29T00:00:00Z", "2026-04-31T00:00:00Z",
        "2026-11-27T24:00:00Z", "2026-11-27T10:60:00Z", "2026-11-27T10:15:60Z", "0000-12-31T00:00:00Z",
        "2026-11-27T10:15:56+0100", "2026-11-27T10:15:56+24:00", "2026-11-27T10:15:56Zjunk", " 2026-11-27T10:15:56Z",
        "２０２６-11-27T10:15:56Z", "0001-01-01T00:00:00+00:01", "yesterday",
    ])
    func refuses(text: String) {
        #expect(MealieTimestamp(parsing: text) == nil)
    }

    @Test("The form sent in a queryFilter has six digits and Z, and reads back to the same instant", arguments: [
        "2026-11-27T10:15:56.212913Z", "2026-11-27T10:15:56.000000Z", "1969-12-31T23:59:59.999999Z",
        "0001-01-01T00:00:00.000000Z", "9999-12-31T23:59:59.999999Z", "2000-02-29T12:00:00.000001Z",
    ])
    func writesExactly(text: String) throws {
        let instant = try #require(MealieTimestamp(parsing: text))
        #expect(instant.description == text)
        #expect(MealieTimestamp(parsing: instant.description) == instant)
    }

    @Test("Instants a microsecond apart stay apart and in order (a Double of seconds would merge them)")
    func microsecondOrder() throws {
        let earlier = try #require(MealieTimestamp(parsing: "2026-11-27T10:19:34.347027Z"))
        let later = try #require(MealieTimestamp(parsing: "2026-11-27T10:19:34.347028+00:00"))
        #expect(earlier < later)
        #expect(later.microseconds - earlier.microseconds == 1)
    }

    @Test("Moving back stops at year 1 instead of overflowing")
    func movedBack() throws {
        let instant = try #require(MealieTimestamp(parsing: "2026-11-27T10:15:56.212913Z"))
        #expect(instant.movedBack(by: .seconds(5)).description == "2026-11-27T10:15:51.212913Z")
        #expect(instant.movedBack(by: .milliseconds(1)).description == "2026-11-27T10:15:56.211913Z")
        #expect(instant.movedBack(by: .seconds(Int64.max)).description == "0001-01-01T00:00:00.000000Z")
        #expect(instant.movedBack(by: .seconds(-5)) == instant)
    }

    @Test("Microsecond counts outside years 1 to 9999 make no timestamp")
    func range() {
        #expect(MealieTimestamp(microseconds: Int64.max) == nil)
        #expect(MealieTimestamp(microseconds: Int64.min) == nil)
        #expect(MealieTimestamp(microseconds: 0)?.description == "1970-01-01T00:00:00.000000Z")
    }
}
