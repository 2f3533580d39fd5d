import RecipeModels

/// One screen of `recipes cook` on a terminal, as rows of text: the ingredients (mise en place, or all of them over a
/// step), or one step ("Step 2 of 7 · Section") wrapped to the terminal's width with the ingredients it uses below it;
/// then the running timers, what a key just did, and the keys on the last row. Every row fits the width as the
/// terminal counts it (`TerminalText.width`); rows beyond the screen's height are cut, the last one saying how many.
enum CookScreen {
    /// Bold on and off, for the heading row.
    static let bold = "\u{1B}[1m", plain = "\u{1B}[0m"

    /// The rows of `session`'s screen of `text` at `now`, for a terminal of `size`: exactly `size.rows` rows (the
    /// heading row in bold), none wider than `size.columns`.
    static func rows(_ text: CookText, _ session: CookSession, size: TerminalSize, now: Duration) -> [String] {
        let width = max(10, size.columns)
        let height = max(3, size.rows)
        var foot = session.timers.running.map { timerRow($0, now: now) }
        foot += session.notices.flatMap { TextWrap.lines(noticeText($0, text: text, now: now), width: width, first: "", rest: "  ") }
        foot.append(keyRow(text, session, width: width))
        let foots = Array(foot.suffix(height - 1))
        let room = height - 1 - foots.count
        var body: [String]
        let heading: String
        switch session.screen {
        case .ingredients:
            heading = "Ingredients" + (text.yieldLine.isEmpty ? "" : " · " + text.yieldLine)
            let last = session.stepCount > 0 ? "Get them ready, then → for step 1." : "This recipe has no steps."
            body = [text.title, ""] + ingredientRows(text, width: width, room: room - 4) + ["", last]
        case .allIngredients(over: let step):
            heading = "All ingredients · over step \(step + 1) of \(session.stepCount)"
            body = [text.title, ""] + ingredientRows(text, width: width, room: room - 2)
        case .step(let step):
            let section = text.content.steps[step].section
            heading = "Step \(step + 1) of \(session.stepCount)" + (section.isEmpty ? "" : " · " + TerminalText.clean(section))
            body = [text.title, ""]
            for line in FieldLines.textLines(text.content.steps[step].text) {
                body += TextWrap.lines(line, width: width, first: "", rest: "")
            }
            let used = text.uses[step]
            if !used.isEmpty {
                body += ["", "You need:"]
                for index in used { body += TextWrap.lines(text.ingredient(index), width: width, first: "  ", rest: "    ") }
            }
        }
        if body.count > room {
            let cut = body.count - room + 1
            body = Array(body.prefix(max(0, room - 1))) + (room > 0 ? ["… \(cut) more rows: make the terminal taller"] : [])
        }
        let fill = [String](repeating: "", count: max(0, room - body.count))
        let rows = [bold + TerminalText.truncate(heading, to: width) + plain]
            + (body + fill + foots).map { TerminalText.truncate($0, to: width) }
        return Array(rows.prefix(height))
    }

    /// The ingredients, under their sections' names, wrapped with a hanging indent; in two columns (the left one
    /// filled first) when one column needs more than `room` rows and the screen is at least 60 columns wide.
    static func ingredientRows(_ text: CookText, width: Int, room: Int) -> [String] {
        guard !text.content.ingredients.isEmpty else { return ["(no ingredients)"] }
        func column(_ width: Int) -> [String] {
            var rows: [String] = []
            for section in text.sections.sections {
                if !section.name.isEmpty { rows += (rows.isEmpty ? [] : [""]) + [TerminalText.clean(section.name) + ":"] }
                for index in section.ingredients { rows += TextWrap.lines(text.ingredient(index), width: width, first: "  ", rest: "    ") }
            }
            return rows
        }
        let one = column(width)
        guard one.count > room, width >= 60 else { return one }
        let half = (width - 2) / 2
        let rows = column(half)
        let left = rows.prefix((rows.count + 1) / 2), right = rows.dropFirst(left.count)
        return left.enumerated().map { index, row in
            let other = right.dropFirst(index).first
            return other.map { TerminalText.fit(row, to: half) + "  " + $0 } ?? row
        }
    }

    /// A running timer: `timer · step 3 · 11:32 left · 10-12 minutes` (`look now` once a range's shortest has passed).
    static func timerRow(_ timer: CookTimers.Timer, now: Duration) -> String {
        let left = timer.secondsLeft(at: now)
        var row = "timer · step \(timer.step + 1) · \(StepDuration.clock(left)) left · " + TerminalText.clean(timer.duration.text)
        if let check = timer.checkFrom, left <= check { row += ": look now" }
        return row
    }

    /// What a key or a timer's end just did, in words.
    static func noticeText(_ notice: CookSession.Notice, text: CookText, now: Duration) -> String {
        switch notice {
        case .timerStarted(let timer):
            let range = timer.checkFrom.map { ": look from \(StepDuration.clock($0)) left" } ?? ""
            return "timer started for step \(timer.step + 1): \(StepDuration.clock(timer.duration.longest)) ("
                + TerminalText.clean(timer.duration.text) + range + ")"
        case .timerRunning(let timer):
            return "step \(timer.step + 1)'s timer is running: \(StepDuration.clock(timer.secondsLeft(at: now))) left"
        case .noTime(let step):
            return "step \(step + 1) names no time to count down"
        case .timerNeedsStep:
            return "t starts a step's timer: → goes to step 1"
        case .timerDone(let timer):
            return "time's up: step \(timer.step + 1)'s timer is done (" + TerminalText.clean(timer.duration.text) + ")"
        case .lastStep:
            return "that was the last step: ← goes back, q quits"
        case .noSteps:
            return "this recipe has no steps"
        case .quitWithTimers(let count):
            return (count == 1 ? "a timer is" : "\(count) timers are") + " running: q again quits, any other key stays"
        }
    }

    /// The keys that do something on this screen, shortened to fit `width`.
    static func keyRow(_ text: CookText, _ session: CookSession, width: Int) -> String {
        var keys: [(long: String, short: String)] = []
        switch session.screen {
        case .ingredients:
            if session.stepCount > 0 { keys.append(("→/n/space step 1", "→ step 1")) }
        case .allIngredients:
            keys.append(("→/←/i back to the step", "→ back"))
        case .step(let step):
            if step + 1 < session.stepCount { keys.append(("→/n/space next", "→ next")) }
            keys.append(("←/p back", "← back"))
            keys.append(("i all ingredients", "i ingredients"))
            if let time = session.times[step].first {
                keys.append(("t start the timer (" + TerminalText.clean(time.text) + ")", "t timer"))
            }
        }
        keys.append(("q quit", "q quit"))
        let long = keys.map(\.long).joined(separator: " · ")
        if TerminalText.width(long) <= width { return long }
        let short = keys.map(\.short).joined(separator: "  ")
        if TerminalText.width(short) <= width { return short }
        return "keys: " + keys.map { String($0.short.prefix(1)) }.joined(separator: " ")
    }
}
