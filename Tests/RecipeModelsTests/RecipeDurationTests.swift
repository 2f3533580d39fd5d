import Testing
@testable import RecipeModels

@Suite("Times: read as a person writes them or as ISO 8601, kept as ISO 8601, shown as 1h 30m")
struct RecipeDurationTests {
    @Test("what a person types and what pages write read as the same times", arguments: [
        ("1h 30m", 5400), ("1h30m", 5400), ("90 min", 5400), ("90 minutes", 5400), ("1 hour 30 minutes", 5400),
        ("1 hour and 30 minutes", 5400), ("1.5 hours", 5400), ("1 hr, 30 mins", 5400), ("PT1H30M", 5400),
        ("pt1h30m", 5400), ("PT90M", 5400), ("P0DT1H30M", 5400), ("P0Y0M0DT1H30M0.000S", 5400), ("PT0.5H", 1800),
        ("45m", 2700), ("45 min.", 2700), ("2d", 172_800), ("1 day 2 hours", 93_600), ("P1DT2H", 93_600),
        ("PT30S", 30), ("0m", 0), ("PT0M", 0), ("P1W", 604_800), ("  15 min  ", 900),
    ])
    func reads(_ text: String, _ seconds: Int) throws {
        #expect(try RecipeDuration(parsing: text).seconds == seconds)
    }

    @Test("anything else is refused with what a time looks like", arguments: [
        "", "soon", "90", "1h 30", "1:30", "P", "PT", "PT1H30", "P1M", "P1Y", "1 fortnight", "h", "-5 min", "PT1H1H",
    ])
    func refuses(_ text: String) {
        #expect(throws: DurationError(text: text)) { try RecipeDuration(parsing: text) }
        #expect(DurationError(text: text).message == "\"\(text)\" is not a time; write it like 1h 30m, 90 min or PT1H30M (\"\" clears it)")
    }

    @Test("kept as ISO 8601 and shown in words that read back the same", arguments: [
        (5400, "PT1H30M", "1h 30m"), (2700, "PT45M", "45m"), (3600, "PT1H", "1h"), (0, "PT0M", "0m"),
        (93_600, "P1DT2H", "1d 2h"), (86_400, "P1D", "1d"), (3630, "PT1H30S", "1h 30s"), (30, "PT30S", "30s"),
    ])
    func writes(_ seconds: Int, _ iso: String, _ shown: String) throws {
        let duration = RecipeDuration(seconds: seconds)
        #expect(duration.iso8601 == iso)
        #expect(duration.description == shown)
        #expect(try RecipeDuration(parsing: iso).seconds == seconds)
        #expect(try RecipeDuration(parsing: shown).seconds == seconds)
    }

    @Test("what is stored for a typed time: ISO 8601 as typed, a spoken time in ISO 8601, nothing for blank")
    func stored() throws {
        #expect(try RecipeDuration.stored("1h 30m") == "PT1H30M")
        #expect(try RecipeDuration.stored("P0DT1H30M") == "P0DT1H30M")
        #expect(try RecipeDuration.stored("  ") == "")
        #expect(throws: DurationError(text: "later")) { try RecipeDuration.stored("later") }
        #expect(RecipeDuration.display("PT1H30M") == "1h 30m")
        #expect(RecipeDuration.display("about an hour") == "about an hour")
    }
}
