import Testing
@testable import RecipeModels

@Suite("The times a step names, for its timer")
struct StepDurationTests {
    @Test("a time a step names: its longest and shortest seconds and its words as written", arguments: [
        ("Bake for 25 minutes.", 1500, 1500, "25 minutes"),
        ("Simmer 1 hour 15 min, stirring.", 4500, 4500, "1 hour 15 min"),
        ("Simmer 1 hour and 15 minutes.", 4500, 4500, "1 hour and 15 minutes"),
        ("Roast 10-12 minutes until golden.", 720, 600, "10-12 minutes"),
        ("Roast 10–12 mins.", 720, 600, "10–12 mins"),
        ("Cook 10 to 12 minutes.", 720, 600, "10 to 12 minutes"),
        ("Rest 45 minutes to 1 hour.", 3600, 2700, "45 minutes to 1 hour"),
        ("Prove for 1½ hours.", 5400, 5400, "1½ hours"),
        ("Prove for 1 1/2 hours.", 5400, 5400, "1 1/2 hours"),
        ("Braise for 1.5 hrs.", 5400, 5400, "1.5 hrs"),
        ("Leave for half an hour.", 1800, 1800, "half an hour"),
        ("Bake for an hour and a half.", 5400, 5400, "an hour and a half"),
        ("Boil for twenty-five minutes.", 1500, 1500, "twenty-five minutes"),
        ("Stir for 30 seconds.", 30, 30, "30 seconds"),
        ("Bake 1h30 at 160 °C.", 5400, 5400, "1h30"),
        ("Bake 1h 30m.", 5400, 5400, "1h 30m"),
        ("Poach 25min.", 1500, 1500, "25min"),
        ("Let it stand a minute or two.", 60, 60, "a minute"),
    ] as [(String, Int, Int, String)])
    func reads(_ step: String, _ longest: Int, _ shortest: Int, _ text: String) {
        #expect(StepDuration.all(in: step) == [StepDuration(shortest: shortest, longest: longest, text: text)])
    }

    @Test("words that are no timer: no number, days, a repeat, lengths and temperatures", arguments: [
        "Chill overnight.", "Cook for a few minutes until soft.", "Marinate for 2 days.", "Stir every 5 minutes.",
        "Stir every 10-15 minutes.", "Cut into 5 m strips.", "Bake at 180 °C until golden.", "Add 2 eggs.",
        "Serves 4.", "Repeat steps 2-3.",
    ])
    func noTimer(_ step: String) {
        #expect(StepDuration.all(in: step).isEmpty)
    }

    @Test("a step with several times has each, in order")
    func several() {
        #expect(StepDuration.all(in: "Bake 25 minutes, then rest for 10 minutes before slicing.") == [
            StepDuration(shortest: 1500, longest: 1500, text: "25 minutes"),
            StepDuration(shortest: 600, longest: 600, text: "10 minutes"),
        ])
    }

    @Test("a countdown as minutes and seconds, hours from an hour", arguments: [
        (0, "00:00"), (5, "00:05"), (65, "01:05"), (1500, "25:00"), (3599, "59:59"), (3600, "1:00:00"), (4500, "1:15:00"),
        (-3, "00:00"),
    ])
    func clock(_ seconds: Int, _ expected: String) {
        #expect(StepDuration.clock(seconds) == expected)
    }
}
