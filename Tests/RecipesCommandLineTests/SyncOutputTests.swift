import Foundation
import Locking
import RecipesTestSupport
import Testing
@testable import RecipeModels
@testable import RecipesCommandLine

/// A fixed recipe identity and a fixed start time, so lines can be compared exactly.
private let soupUUID = UUID(uuidString: "6F1C2A3B-4D5E-4F60-8172-93A4B5C6D7E8")!
private let t0 = Date(timeIntervalSince1970: 1_700_000_000)  // 2023-11-14T22:13:20Z

private func event(
    _ kind: SyncEvent.Kind, id: Int64 = 3, title: String = "Tomato soup", step: SyncEvent.Step? = nil,
    revision: Int64? = nil, bytes: Int64? = nil, total: Int64? = nil, attempt: Int? = nil, delay: Double? = nil,
    error: String? = nil, at seconds: Double = 0, version: Int64? = nil
) -> SyncEvent {
    SyncEvent(
        kind, id: id, uuid: soupUUID, title: title, step: step, revision: revision, bytes: bytes, total: total,
        attempt: attempt, delay: delay, error: error, time: t0.addingTimeInterval(seconds), version: version)
}

/// A console that writes each text one character at a time, yielding in between: an output that did not
/// serialize its writes would see characters of concurrent lines interleave.
private final class TricklingConsole: Console {
    private let buffer = Locked("")
    func out(_ text: String) {
        for character in text {
            buffer.withLock { $0.append(character) }
            sched_yield()
        }
    }
    func err(_ text: String) { out(text) }
    var text: String { buffer.withLock { $0 } }
}

private func lines(_ text: String) -> [String] { text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) }

private func jsonObject(_ line: String) throws -> [String: Any] {
    try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
}

/// The keys of a JSON object line in the order written (the writer never nests in event lines).
private func keyOrder(_ line: String) throws -> [String] {
    let object = try jsonObject(line)
    let regex = try Regex(#""([A-Za-z]+)":"#)
    return line.matches(of: regex).map { String(line[$0.range].dropFirst().dropLast(2)) }.filter { object[$0] != nil }
}

@Suite("sync output: JSON lines, plain lines, live terminal frames, the background log")
struct SyncOutputTests {
    // MARK: Mode selection

    @Test("mode: --background beats --json beats terminal detection; TERM=dumb or a pipe means plain")
    func modeSelection() {
        let term = ["TERM": "xterm-256color"]
        #expect(SyncOutputMode.select(background: true, json: true, environment: term, stdoutIsTerminal: true) == .background)
        #expect(SyncOutputMode.select(background: true, json: false, environment: term, stdoutIsTerminal: false) == .background)
        #expect(SyncOutputMode.select(background: false, json: true, environment: term, stdoutIsTerminal: true) == .json)
        #expect(SyncOutputMode.select(background: false, json: false, environment: term, stdoutIsTerminal: true) == .terminal)
        #expect(SyncOutputMode.select(background: false, json: false, environment: [:], stdoutIsTerminal: true) == .terminal)
        #expect(SyncOutputMode.select(background: false, json: false, environment: ["TERM": "dumb"], stdoutIsTerminal: true) == .plain)
        #expect(SyncOutputMode.select(background: false, json: false, environment: term, stdoutIsTerminal: false) == .plain)
    }

    // MARK: JSON

    @Test("JSON: keys event, id, uuid, title, the optional ones in order, time last; valid JSON that parses back")
    func jsonEventLine() throws {
        let full = event(
            .retry, step: .image, revision: 4, bytes: 1024, total: 262_144, attempt: 2, delay: 2.4, error: "HTTP 503",
            at: 0.25)
        let line = JSONSyncOutput.line(full)
        #expect(line == #"{"event":"retry","id":3,"uuid":"6f1c2a3b-4d5e-4f60-8172-93a4b5c6d7e8","title":"Tomato soup","step":"image","revision":4,"bytes":1024,"total":262144,"attempt":2,"delay":2.4,"error":"HTTP 503","time":"2023-11-14T22:13:20.250Z"}"#)
        #expect(try keyOrder(line) == [
            "event", "id", "uuid", "title", "step", "revision", "bytes", "total", "attempt", "delay", "error", "time",
        ])
        let object = try jsonObject(line)
        #expect(object["delay"] as? Double == 2.4)
        #expect(object["total"] as? Int == 262_144)
        #expect(object["uuid"] as? String == soupUUID.uuidString.lowercased())
    }

    @Test("JSON: nil fields are left out, not written as null")
    func jsonOmitsNils() throws {
        let line = JSONSyncOutput.line(event(.cancelled))
        #expect(try keyOrder(line) == ["event", "id", "uuid", "title", "time"])
        #expect(!line.contains("null"))
        let done = try jsonObject(JSONSyncOutput.line(event(.done, step: .recipe, revision: 4)))
        #expect(Set(done.keys) == ["event", "id", "uuid", "title", "step", "revision", "time"])
    }

    @Test("JSON and text: done names the server's version (the number every device shares), not this device's revision")
    func doneNamesTheServersVersion() throws {
        let done = try jsonObject(JSONSyncOutput.line(event(.done, step: .recipe, revision: 14, version: 4)))
        #expect(done["version"] as? Int == 4 && done["revision"] as? Int == 14)
        #expect(SyncEventText.line(event(.done, step: .recipe, revision: 14, version: 4))
            == "#3 Tomato soup: done (version 4 on the server)")
    }

    @Test("text: a recipe with no id here yet (a server's change not applied) is named by its uuid's start, never #0")
    func noIDYet() {
        let prefix = String(soupUUID.uuidString.lowercased().prefix(8))
        #expect(SyncEventText.line(event(.pulled, id: 0)).hasPrefix(prefix + " Tomato soup: "))
        #expect(SyncEventText.line(event(.pulled, id: 0, title: "")).hasPrefix(prefix + ": "))
        #expect(SyncEventText.line(event(.pulled)).hasPrefix("#3 Tomato soup: "))
    }

    @Test("JSON: a title with quotes, backslashes, newlines and escape sequences stays one valid line")
    func jsonEscapesTitle() throws {
        let title = "Soup \"best\" \\ \n\u{1B}[2J\u{7F}\u{9B}31m ✓"
        let line = JSONSyncOutput.line(event(.start, title: title, step: .image, total: 10, attempt: 1))
        #expect(!line.contains("\n"))
        #expect(!line.contains("\u{1B}"))
        #expect(try jsonObject(line)["title"] as? String == title)
    }

    @Test("JSON: finish writes the summary line with the counts and the exit status")
    func jsonSummary() throws {
        let console = CapturingConsole()
        let output = makeSyncOutput(mode: .json, console: console, logsDirectory: URL(fileURLWithPath: "/nonexistent"))
        output.emit(event(.done, revision: 9, version: 4))
        output.finish(SyncSummary(done: 3, failed: 1, cancelled: 0, waiting: 2))
        let written = lines(console.stdout)
        #expect(written.count == 2)
        #expect(written.last == #"{"event":"summary","done":3,"failed":1,"cancelled":0,"waiting":2,"pulled":0,"merged":0,"conflicts":0,"removed":0,"failedEarlier":0,"cancelledEarlier":0,"exitStatus":1}"#)
        for line in written { _ = try jsonObject(line) }
        #expect(console.stderr.isEmpty)
        #expect(JSONSyncOutput.line(SyncSummary()) ==
            #"{"event":"summary","done":0,"failed":0,"cancelled":0,"waiting":0,"pulled":0,"merged":0,"conflicts":0,"removed":0,"failedEarlier":0,"cancelledEarlier":0,"exitStatus":0}"#)
        #expect(JSONSyncOutput.line(SyncSummary(waiting: 1)).hasSuffix(#""exitStatus":75}"#))
        #expect(JSONSyncOutput.line(SyncSummary(failed: 1, credentialsRefused: true)).hasSuffix(#""exitStatus":77}"#))
    }

    @Test("JSON writer: doubles in shortest form, non-finite as null; the existing cases unchanged")
    func jsonWriterDoubles() {
        var writer = JSONWriter()
        writer.object([
            "a": .double(2.4), "b": .double(3), "c": .double(.infinity), "d": .double(nil), "e": .integer(nil),
            "f": .string("x"), "g": .raw("[]"),
        ])
        #expect(writer.text == #"{"a":2.4,"b":3.0,"c":null,"d":null,"e":null,"f":"x","g":[]}"#)
    }

    // MARK: Plain

    @Test("plain: one grep-friendly line per kind of event")
    func plainLines() {
        let cases: [(SyncEvent, String)] = [
            (event(.start, step: .image, total: 262_144, attempt: 1), "#3 Tomato soup: image: uploading 256.0 KiB (attempt 1)"),
            (event(.start, step: .recipe, revision: 4, total: 1229, attempt: 2),
             "#3 Tomato soup: recipe: uploading revision 4, 1.2 KiB (attempt 2)"),
            (event(.start, step: .delete, attempt: 1), "#3 Tomato soup: delete: deleting on the server (attempt 1)"),
            (event(.progress, step: .image, bytes: 131_072, total: 262_144),
             "#3 Tomato soup: image: 50% (128.0 KiB of 256.0 KiB)"),
            (event(.progress, step: .image, bytes: 131_072), "#3 Tomato soup: image: 128.0 KiB sent"),
            (event(.retry, step: .image, delay: 2.4, error: "HTTP 503: busy"),
             "#3 Tomato soup: image: retry in 2.4 s after HTTP 503: busy"),
            (event(.done, revision: 9, version: 4), "#3 Tomato soup: done (version 4 on the server)"),
            (event(.done, step: .delete), "#3 Tomato soup: done (deleted on the server)"),
            (event(.failed, error: "HTTP 422: image unknown"), "#3 Tomato soup: failed: HTTP 422: image unknown"),
            (event(.cancelled), "#3 Tomato soup: cancelled"),
            (event(.cancelled, error: "interrupted"), "#3 Tomato soup: cancelled: interrupted"),
            (event(.offline, error: "cannot reach r.example.org:443"),
             "#3 Tomato soup: offline: cannot reach r.example.org:443"),
            (event(.offline, step: .image, delay: 2, error: "cannot reach r.example.org:443"),
             "#3 Tomato soup: offline: cannot reach r.example.org:443; checking again in 2.0 s"),
            (event(.skipped, error: "uploading in pid 4242"), "#3 Tomato soup: skipped: uploading in pid 4242"),
            (event(.skipped, delay: 250), "#3 Tomato soup: skipped: next attempt in 4 min 10 s"),
        ]
        for (event, expected) in cases {
            #expect(SyncEventText.line(event) == expected)
        }
    }

    @Test("plain: the summary line counts what is not zero, or says there was nothing to do")
    func plainSummary() {
        #expect(SyncEventText.summary(SyncSummary(done: 3, failed: 1, waiting: 2)) == "sync: 3 done, 1 failed, 2 waiting")
        #expect(SyncEventText.summary(SyncSummary(cancelled: 1)) == "sync: 1 cancelled")
        #expect(SyncEventText.summary(SyncSummary()) == "sync: nothing to do")
        #expect(SyncEventText.summary(SyncSummary(credentialsRefused: true))
            == "sync: stopped: the server refused the credentials (\(CredentialsAdvice.hint()))")
        let console = CapturingConsole()
        let output = makeSyncOutput(mode: .plain, console: console, logsDirectory: URL(fileURLWithPath: "/nonexistent"))
        output.finish(SyncSummary(done: 1, credentialsRefused: true))
        #expect(console.stdout == "sync: 1 done; stopped: the server refused the credentials (\(CredentialsAdvice.hint()))\n")
        #expect(console.stderr.isEmpty)  // the summary says it; the REPL adds its own one-line failure
    }

    @Test("plain: progress lines at most one per second per recipe, the first a second after the start, plus the 100% line once; clock = event time")
    func plainProgressThrottle() {
        let console = CapturingConsole()
        let output = PlainSyncOutput(console: console)
        output.emit(event(.start, step: .image, total: 1000, attempt: 1, at: 0))
        for tick in 0..<12 {  // every 0.25 s for 3 s; recipe 3 and recipe 4 interleaved
            let seconds = Double(tick) / 4
            output.emit(event(.progress, step: .image, bytes: Int64(tick * 50), total: 1000, at: seconds))
            output.emit(event(.progress, id: 4, title: "Bread", step: .image, bytes: Int64(tick), total: 100, at: seconds + 0.1))
        }
        output.emit(event(.progress, step: .image, bytes: 1000, total: 1000, at: 2.8))  // within a second: shown anyway
        output.emit(event(.progress, step: .image, bytes: 1000, total: 1000, at: 2.9))  // a repeated 100%: dropped
        output.emit(event(.done, revision: 9, at: 3, version: 4))
        let soup = lines(console.stdout).filter { $0.hasPrefix("#3 ") }
        #expect(soup == [
            "#3 Tomato soup: image: uploading 1000 B (attempt 1)",
            "#3 Tomato soup: image: 20% (200 B of 1000 B)",
            "#3 Tomato soup: image: 40% (400 B of 1000 B)",
            "#3 Tomato soup: image: 100% (1000 B of 1000 B)",
            "#3 Tomato soup: done (version 4 on the server)",
        ])
        let bread = lines(console.stdout).filter { $0.hasPrefix("#4 ") }
        // No start event seen for Bread: its first progress line shows at once.
        #expect(bread == ["#4 Bread: image: 0% (0 B of 100 B)", "#4 Bread: image: 4% (4 B of 100 B)",
                          "#4 Bread: image: 8% (8 B of 100 B)"])
    }

    @Test("plain: a new attempt's progress starts over: its first line a second after its start")
    func plainThrottleResetsOnRetry() {
        let console = CapturingConsole()
        let output = PlainSyncOutput(console: console)
        output.emit(event(.start, step: .image, total: 100, attempt: 1, at: 0))
        output.emit(event(.progress, step: .image, bytes: 10, total: 100, at: 1.0))
        output.emit(event(.retry, step: .image, delay: 0.1, error: "reset", at: 1.2))
        output.emit(event(.start, step: .image, total: 100, attempt: 2, at: 1.3))
        output.emit(event(.progress, step: .image, bytes: 5, total: 100, at: 1.4))   // 0.1 s into attempt 2: not yet
        output.emit(event(.progress, step: .image, bytes: 50, total: 100, at: 2.3))  // a second into attempt 2
        let progress = lines(console.stdout).filter { $0.contains("%") }
        #expect(progress == ["#3 Tomato soup: image: 10% (10 B of 100 B)", "#3 Tomato soup: image: 50% (50 B of 100 B)"])
    }

    @Test("plain: a quick upload shows its start and its outcome, no progress line, not even 100%")
    func plainQuickUploadHasNoProgressLines() {
        let console = CapturingConsole()
        let output = PlainSyncOutput(console: console)
        output.emit(event(.start, step: .image, total: 1000, attempt: 1, at: 0))
        output.emit(event(.progress, step: .image, bytes: 500, total: 1000, at: 0.002))
        output.emit(event(.progress, step: .image, bytes: 1000, total: 1000, at: 0.004))
        output.emit(event(.done, revision: 9, at: 0.01, version: 4))
        #expect(lines(console.stdout) == [
            "#3 Tomato soup: image: uploading 1000 B (attempt 1)",
            "#3 Tomato soup: done (version 4 on the server)",
        ])
    }

    @Test("control characters in titles and errors become spaces: no escape sequence, no line break gets out")
    func controlCharactersStripped() {
        let title = "Evil\u{1B}]0;pwned\u{07}\u{1B}[2J\nsoup\r\u{9B}31m\u{7F}\u{202E}"
        let line = SyncEventText.line(event(.failed, title: title, error: "bad\u{1B}[31m\nthing"))
        #expect(line == "#3 Evil ]0;pwned  [2J soup  31m  : failed: bad [31m thing")
        for scalar in line.unicodeScalars { #expect(scalar.value >= 0x20 && !(0x7F...0x9F).contains(scalar.value)) }
        let console = CapturingConsole()
        let output = PlainSyncOutput(console: console)
        output.emit(event(.start, title: title, step: .image, total: 10, attempt: 1))
        output.emit(event(.retry, title: title, step: .image, delay: 1, error: "x\ny"))
        #expect(lines(console.stdout).count == 2)
        #expect(!console.stdout.contains("\u{1B}") && !console.stdout.contains("\r"))
        #expect(SyncEventText.line(event(.cancelled, title: "\n\t")) == "#3: cancelled")
    }

    // MARK: Terminal

    /// A run in full swing: a long wide-character title uploading, a short one retrying, one of unknown size,
    /// a deletion, two finished.
    private func busyState() -> SyncProgressState {
        var state = SyncProgressState()
        state.apply(event(.start, id: 1, title: "Grandmother's slow-cooked 番茄汤 with a very long name indeed",
                          step: .image, total: 5 << 20, attempt: 3, at: 0))
        for tick in 1...20 {
            state.apply(event(.progress, id: 1, title: "x", step: .image, bytes: Int64(tick) << 17, total: 5 << 20,
                              at: Double(tick) / 10))
        }
        state.apply(event(.start, id: 2, title: "Soup", step: .recipe, revision: 7, total: 1229, attempt: 1, at: 0.5))
        state.apply(event(.retry, id: 2, title: "Soup", step: .recipe, delay: 12.5, error: "HTTP 503: Service Unavailable",
                          at: 1.0))
        state.apply(event(.start, id: 5, title: "Bread", step: .image, attempt: 1, at: 0.5))
        state.apply(event(.progress, id: 5, title: "Bread", step: .image, bytes: 4096, at: 1.5))
        state.apply(event(.start, id: 6, title: "Old pie", step: .delete, attempt: 2, at: 1.5))
        state.apply(event(.done, id: 3, title: "Cake", revision: 2, at: 1.0))
        state.apply(event(.failed, id: 4, title: "Tart", error: "HTTP 422", at: 1.2))
        state.apply(event(.offline, id: 7, title: "Jam", at: 1.2))
        return state
    }

    @Test("terminal frame: at widths 40, 80 and 120 every row fits, one row per upload plus the overall row",
          arguments: [40, 80, 120])
    func terminalFrameFits(columns: Int) throws {
        let state = busyState()
        let rows = SyncProgressView.render(state, now: t0.addingTimeInterval(2), columns: columns)
        try #require(rows.count == 5, "\(rows)")
        for row in rows {
            #expect(TerminalText.width(row) <= columns - 1, "\(row)")
            #expect(!row.contains("\u{1B}") && !row.contains("\n"))
        }
        #expect(rows[0].contains("%"))  // the percentage survives every width
        #expect(rows[1].contains("retry"))
        #expect(rows[3].contains("deleting"))
        if columns >= 80 {
            #expect(rows[0].contains("[") && rows[0].contains("attempt 3"))
            #expect(rows[1].contains("retry in 12 s"))
            #expect(rows[2].contains("4.0 KiB sent"))
            #expect(rows.last == "1 of 7 recipes done · 1 failed · 1 waiting · 1.3 MiB/s")
        }
        if columns >= 120 {
            #expect(rows[0].contains("2.5 MiB / 5.0 MiB"))
            #expect(rows[0].contains("MiB/s"))
            #expect(rows[1].contains("after HTTP 503: Service Unavailable"))
        }
    }

    @Test("terminal frame: the exact rows of one upload at 80 and 120 columns; the bar takes what the fixed fields leave")
    func terminalRowLayout() {
        var state = SyncProgressState()
        state.apply(event(.start, step: .image, total: 262_144, attempt: 2, at: 0))
        state.apply(event(.progress, step: .image, bytes: 131_072, total: 262_144, at: 1))
        let now = t0.addingTimeInterval(2)
        #expect(SyncProgressView.render(state, now: now, columns: 80) == [
            "Tomato soup  image   [######-------]  50%    128.0 KiB / 256.0 KiB    attempt 2",
            "0 of 1 recipe done · 64.0 KiB/s",
        ])
        #expect(SyncProgressView.render(state, now: now, columns: 120) == [
            "Tomato soup  image   [###############---------------]  50%    128.0 KiB / 256.0 KiB   64.0 KiB/s   attempt 2",
            "0 of 1 recipe done · 64.0 KiB/s",
        ])
    }

    @Test("a stale write merged and written again is a line of its own and keeps the upload's row: it is no end")
    func mergeRoundKeepsTheUpload() {
        let round = event(.merged, step: .recipe, revision: 5,
                          error: "another device wrote first; sending the merge as revision 5 (round 2 of 3)", at: 1, version: 4)
        #expect(SyncEventText.line(round) == "#3 Tomato soup: merged with the server's version 4; another device wrote "
            + "first; sending the merge as revision 5 (round 2 of 3)")
        var state = SyncProgressState()
        state.apply(event(.start, step: .recipe, revision: 4, total: 1229, attempt: 1, at: 0))
        #expect(state.apply(round) == false, "not the end of the recipe's part in the run")
        #expect(SyncProgressView.render(state, now: t0.addingTimeInterval(2), columns: 80).count == 2, "its row stays")
        #expect(state.apply(event(.done, step: .recipe, revision: 5, at: 2, version: 5)) == true)
        #expect(SyncProgressView.render(state, now: t0.addingTimeInterval(3), columns: 80).count == 1)
        // A pull's merge (no step) ends the recipe's part, as before.
        #expect(state.apply(event(.merged, id: 9, at: 3, version: 2)) == true)
    }

    /// The width of the bar in `row` (`[…]`), or nil when it has none.
    private func barWidth(_ row: String) -> Int? {
        guard let open = row.firstIndex(of: "["), let close = row[open...].firstIndex(of: "]") else { return nil }
        return row.distance(from: open, to: close) + 1
    }

    @Test("terminal frame: a bar keeps its width from the first frame to the last, whatever its fields hold",
          arguments: [60, 80, 100, 120])
    func barWidthStable(columns: Int) throws {
        var state = SyncProgressState()
        state.expect(recipes: 2, titles: ["Soup", "Bread"])
        var widths: Set<Int> = []
        func frame(_ seconds: Double) {
            for row in SyncProgressView.render(state, now: t0.addingTimeInterval(seconds), columns: columns).dropLast() {
                if let width = barWidth(row) { widths.insert(width) }
            }
        }
        state.apply(event(.start, id: 1, title: "Soup", step: .image, total: 3 << 20, attempt: 1, at: 0))
        frame(0)
        for tick in 1...24 {  // bytes and sizes grow, a rate appears and changes
            state.apply(event(.progress, id: 1, title: "Soup", step: .image, bytes: Int64(tick) << 17, total: 3 << 20,
                              at: Double(tick) / 10))
            frame(Double(tick) / 10 + 0.05)
        }
        state.apply(event(.start, id: 2, title: "Bread", step: .image, total: 900, attempt: 2, at: 2.5))  // a retry
        frame(2.6)
        state.apply(event(.progress, id: 2, title: "Bread", step: .image, bytes: 900, total: 900, at: 2.7))  // sent whole
        frame(2.8)
        frame(9)  // waiting for the answers
        #expect(widths.count == 1, "bar widths seen at \(columns) columns: \(widths.sorted())")
    }

    @Test("terminal frame: a body sent whole reads `waiting for the server`, with no falling rate, until the answer comes")
    func waitingForTheServer() {
        var state = SyncProgressState()
        state.apply(event(.start, step: .image, total: 262_144, attempt: 1, at: 0))
        state.apply(event(.progress, step: .image, bytes: 131_072, total: 262_144, at: 1))
        state.apply(event(.progress, step: .image, bytes: 262_144, total: 262_144, at: 2))
        for seconds in [2.5, 4.0, 8.0] {
            let rows = SyncProgressView.render(state, now: t0.addingTimeInterval(seconds), columns: 100)
            #expect(rows.first?.hasSuffix("100%  waiting for the server") == true, "\(rows)")
            #expect(!rows.joined().contains("/s"), "no rate while nothing is sent: \(rows)")
        }
        let narrow = SyncProgressView.render(state, now: t0.addingTimeInterval(3), columns: 50)
        #expect(narrow.first?.hasSuffix("100%  waiting") == true, "\(narrow)")
    }

    @Test("terminal output: told how many recipes the run has, the overall row counts against them from the first frame")
    func expectedTotal() {
        let console = CapturingConsole()
        let output = TerminalSyncOutput(
            console: console, colour: false, clock: { t0 }, size: { TerminalSize(columns: 80, rows: 24) })
        output.expect(titles: ["Soup", "Bread", "Tea", "Jam", "Pie"])
        output.emit(event(.start, id: 1, title: "Soup", step: .image, total: 100, attempt: 1, at: 0))
        #expect(console.stdout.contains("0 of 5 recipes done"), "\(console.stdout)")
        #expect(!console.stdout.contains("of 1 recipe"))
    }

    @Test("terminal frame: a body of unknown size reads `uploading revision N` until bytes flow, then bytes sent")
    func terminalUnknownSize() {
        var state = SyncProgressState()
        state.apply(event(.start, step: .recipe, revision: 4, attempt: 1, at: 0))
        #expect(SyncProgressView.render(state, now: t0, columns: 80).first == "Tomato soup  recipe  uploading revision 4")
        state.apply(event(.progress, step: .recipe, revision: 4, bytes: 1229, at: 0.1))
        #expect(SyncProgressView.render(state, now: t0.addingTimeInterval(0.2), columns: 80).first
            == "Tomato soup  recipe  1.2 KiB sent")
    }

    @Test("terminal frame: more uploads than the screen has rows are summed up in one row")
    func terminalFrameRowLimit() throws {
        var state = SyncProgressState()
        for id in 1...30 { state.apply(event(.start, id: Int64(id), title: "R\(id)", step: .image, total: 10, at: 0)) }
        let rows = SyncProgressView.render(state, now: t0, columns: 80, maxRows: 10)
        try #require(rows.count == 10, "\(rows)")
        #expect(rows[8] == "… and 22 more uploading")
        #expect(rows[9] == "0 of 30 recipes done")
    }

    @Test("terminal text: wide characters count two columns and truncation never splits past the width")
    func terminalTextWidth() {
        #expect(TerminalText.width("番茄汤") == 6)
        #expect(TerminalText.width("café") == 4)
        #expect(TerminalText.truncate("番茄汤番茄汤", to: 6) == "番茄…")
        #expect(TerminalText.truncate("Tomato soup", to: 8) == "Tomato …")
        #expect(TerminalText.truncate("Tomato", to: 8) == "Tomato")
    }

    @Test("terminal output: frames redrawn in place, finished recipes as permanent lines, the summary at the end")
    func terminalOutputWrites() {
        let console = CapturingConsole()
        let clock = Locked(t0)
        let output = TerminalSyncOutput(
            console: console, colour: false, clock: { clock.withLock { $0 } },
            size: { TerminalSize(columns: 60, rows: 24) })
        output.emit(event(.start, step: .image, total: 1000, attempt: 1, at: 0))
        for tick in 1...30 {  // the clock stands still: only the first event draws a frame
            output.emit(event(.progress, step: .image, bytes: Int64(tick * 10), total: 1000, at: 0))
        }
        #expect(console.stdout.components(separatedBy: "\r").count - 1 == 1)
        clock.withLock { $0 = t0.addingTimeInterval(1) }
        output.emit(event(.done, revision: 9, at: 1, version: 4))
        output.finish(SyncSummary(done: 1))
        let text = console.stdout
        #expect(text.contains("\u{1B}[2A\r\u{1B}[J#3 Tomato soup: done (version 4 on the server)\n"))
        #expect(text.contains("\u{1B}[K\n"))
        #expect(text.hasSuffix("sync: 1 done\n"))
        #expect(!text.contains("\u{1B}[3"))  // no colour
        #expect(console.stderr.isEmpty)
    }

    @Test("terminal output: colour on the outcome unless NO_COLOR is set")
    func terminalColour() {
        for (environment, coloured) in [([String: String](), true), (["NO_COLOR": "1"], false)] {
            let console = CapturingConsole()
            let output = makeSyncOutput(
                mode: .terminal, console: console, logsDirectory: URL(fileURLWithPath: "/nonexistent"),
                environment: environment)
            output.emit(event(.failed, error: "HTTP 422"))
            output.finish(SyncSummary(failed: 1))
            #expect(console.stdout.contains("\u{1B}[31m") == coloured)
            #expect(console.stdout.contains("failed: HTTP 422"))
        }
    }

    @Test("offline: the recipes left for the network are one line at the end, on a pipe, a terminal and in the log",
          arguments: [SyncOutputMode.plain, .terminal, .background])
    func offlineIsOneLine(mode: SyncOutputMode) throws {
        let dir = TemporaryDirectory()
        let logs = dir.url.appendingPathComponent("logs")
        let console = CapturingConsole()
        let output = makeSyncOutput(mode: mode, console: console, logsDirectory: logs, environment: ["NO_COLOR": "1"])
        for id in 1...500 {
            output.emit(event(.offline, id: Int64(id), title: "Recipe \(id)", error: "cannot reach r.example.org:443"))
        }
        output.finish(SyncSummary(waiting: 500))
        let text = mode == .background
            ? try String(contentsOf: logs.appendingPathComponent("sync.log"), encoding: .utf8) : console.stdout
        #expect(text.components(separatedBy: "offline").count == 2, "one line says offline: \(text.prefix(300))")
        #expect(!text.contains("Recipe 1:") && !text.contains("Recipe 500:"), "no line per recipe")
        let shown = lines(text)
        #expect(shown.suffix(2).first?.hasSuffix("offline: cannot reach r.example.org:443; 500 recipes wait for it, nothing was sent") == true,
                "\(shown.suffix(2))")
        #expect(shown.last?.hasSuffix("sync: 500 waiting") == true, "\(shown.suffix(2))")
        if mode == .background { #expect(console.stderr.isEmpty, "offline is routine for cron: not mailed") }
    }

    @Test("reminders of failed and cancelled recipes: due a day after the last one, at once without one or when the clock went back",
          arguments: [
            (nil, 0.0, true), (0.0, 60.0, false), (0.0, 86_399.0, false), (0.0, 86_400.0, true), (0.0, 200_000.0, true),
            (1_000.0, 10.0, true),
          ] as [(Double?, Double, Bool)])
    func reminderSchedule(last: Double?, now: Double, due: Bool) {
        #expect(ReminderSchedule.isDue(last: last.map { t0.addingTimeInterval($0) }, now: t0.addingTimeInterval(now)) == due)
    }

    @Test("a summary with recipes waiting for a person is never `nothing to do`; failed earlier exits 1, cancelled 0")
    func remindersInTheSummary() {
        let failed = SyncSummary(failedEarlier: 2)
        #expect(SyncEventText.summary(failed) == "sync: 2 failed earlier, not retried" && failed.exitStatus == 1)
        let cancelled = SyncSummary(cancelledEarlier: 1)
        #expect(SyncEventText.summary(cancelled) == "sync: 1 cancelled earlier" && cancelled.exitStatus == 0)
        #expect(SyncEventText.summary(SyncSummary()) == "sync: nothing to do")
    }

    // MARK: Background

    @Test("background: nothing on stdout; events but not progress in the log; only failures and refused credentials on stderr")
    func backgroundOutput() throws {
        let dir = TemporaryDirectory()
        let logs = dir.url.appendingPathComponent("home/logs")
        let console = CapturingConsole()
        let output = makeSyncOutput(mode: .background, console: console, logsDirectory: logs)
        output.emit(event(.start, step: .image, total: 100, attempt: 1, at: 0.5))
        output.emit(event(.progress, step: .image, bytes: 50, total: 100, at: 0.6))
        output.emit(event(.offline, id: 4, title: "Bread", error: "cannot reach the server"))
        output.emit(event(.skipped, id: 5, title: "Jam", error: "uploading in pid 4242"))
        output.emit(event(.retry, step: .image, delay: 2, error: "HTTP 503"))
        output.emit(event(.failed, id: 6, title: "Tart", error: "HTTP 422: bad"))
        output.finish(SyncSummary(failed: 1, waiting: 2, credentialsRefused: true))
        #expect(console.stdout.isEmpty)
        #expect(lines(console.stderr) == [
            "recipes: #6 Tart: failed: HTTP 422: bad",
            String(CredentialsAdvice.backgroundLine().dropLast()),
        ])
        let log = try String(contentsOf: logs.appendingPathComponent("sync.log"), encoding: .utf8)
        let logged = lines(log)
        #expect(logged.count == 6)
        let pid = ProcessInfo.processInfo.processIdentifier
        #expect(logged.first == "2023-11-14T22:13:20.500Z [\(pid)] #3 Tomato soup: image: uploading 100 B (attempt 1)")
        #expect(!log.contains("50%"))
        #expect(logged.last?.hasSuffix("sync: 1 failed, 2 waiting; stopped: the server refused the credentials ("
            + CredentialsAdvice.hint() + ")") == true)
        let mode = try FileManager.default.attributesOfItem(atPath: logs.path)[.posixPermissions] as? Int
        #expect(mode == 0o700)
    }

    @Test("background: a run with nothing to do writes nothing at all")
    func backgroundQuietWhenIdle() {
        let dir = TemporaryDirectory()
        let logs = dir.url.appendingPathComponent("logs")
        let console = CapturingConsole()
        makeSyncOutput(mode: .background, console: console, logsDirectory: logs).finish(SyncSummary())
        #expect(console.stdout.isEmpty && console.stderr.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: logs.path))
    }

    @Test("background: a log that cannot be written is reported once on stderr and the run goes on")
    func backgroundLogFailureReportedOnce() {
        let dir = TemporaryDirectory()
        let blocker = dir.file("not-a-folder", [1])
        let logs = URL(fileURLWithPath: blocker).appendingPathComponent("logs")
        let console = CapturingConsole()
        let output = makeSyncOutput(mode: .background, console: console, logsDirectory: logs)
        output.emit(event(.start, step: .image, attempt: 1))
        output.emit(event(.done, revision: 1))
        output.finish(SyncSummary(done: 1))
        let reported = lines(console.stderr)
        #expect(reported.count == 1)
        #expect(reported.first?.hasPrefix("recipes: cannot write \(logs.path)/sync.log: ") == true)
    }

    @Test("log rotation: past the size sync.log moves to .1, .1 to .2, .2 to .3, the oldest is dropped")
    func logRotation() throws {
        let dir = TemporaryDirectory()
        let logs = dir.url.appendingPathComponent("logs")
        let console = CapturingConsole()
        let log = SyncLog(directory: logs, rotationBytes: 1000, console: console)
        let line = { (n: Int) in "line \(String(format: "%05d", n)) " + String(repeating: "x", count: 88) }  // 100 bytes
        for n in 0..<100 { log.append(line(n)) }
        #expect(console.stderr.isEmpty)
        let base = logs.appendingPathComponent("sync.log").path
        func content(_ path: String) throws -> [String] { lines(try String(contentsOfFile: path, encoding: .utf8)) }
        #expect(!FileManager.default.fileExists(atPath: base + ".4"))
        let generations = try [base + ".3", base + ".2", base + ".1", base].map(content)
        // Each rotated generation holds exactly the 10 lines that took it to 1000 bytes; the live file the rest.
        #expect(generations.map(\.count) == [10, 10, 10, 10])
        #expect(generations.joined().map { $0 } == (60..<100).map(line))
        let mode = try FileManager.default.attributesOfItem(atPath: base)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(FileManager.default.fileExists(atPath: logs.appendingPathComponent(".lock").path))
    }

    @Test("log rotation: two writers (as two processes) rotating the same log lose and split no line")
    func logRotationConcurrentWriters() async throws {
        let dir = TemporaryDirectory()
        let logs = dir.url.appendingPathComponent("logs")
        let console = CapturingConsole()
        let writers = [SyncLog(directory: logs, rotationBytes: 8000, console: console),
                       SyncLog(directory: logs, rotationBytes: 8000, console: console)]
        await withTaskGroup(of: Void.self) { group in
            for (index, writer) in writers.enumerated() {
                group.addTask {
                    for n in 0..<200 { writer.append("writer \(index) line \(String(format: "%04d", n)) ........................") }
                }
            }
        }
        #expect(console.stderr.isEmpty)
        let base = logs.appendingPathComponent("sync.log").path
        var all: [String] = []
        for path in [base + ".3", base + ".2", base + ".1", base] where FileManager.default.fileExists(atPath: path) {
            all += lines(try String(contentsOfFile: path, encoding: .utf8))
        }
        #expect(!FileManager.default.fileExists(atPath: base + ".4"))
        let expected = (0..<2).flatMap { index in
            (0..<200).map { "writer \(index) line \(String(format: "%04d", $0)) ........................" }
        }
        #expect(all.sorted() == expected.sorted())
    }

    // MARK: Concurrency

    @Test("concurrent emits from many tasks come out as whole lines, in JSON, plain and background modes",
          arguments: [SyncOutputMode.json, .plain, .background])
    func concurrentEmitsWholeLines(mode: SyncOutputMode) async throws {
        let dir = TemporaryDirectory()
        let logs = dir.url.appendingPathComponent("logs")
        let console = TricklingConsole()
        let output = makeSyncOutput(mode: mode, console: console, logsDirectory: logs)
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for n in 0..<25 {
                        let kind: SyncEvent.Kind = mode == .background ? .failed : .retry
                        output.emit(event(kind, id: Int64(task + 1), title: "Recipe \(task)", step: .image, delay: 1,
                                          error: "error number \(n) of task \(task)"))
                    }
                }
            }
        }
        output.finish(SyncSummary(done: 1))
        var written = lines(console.text)
        if mode == .background {
            #expect(written.count == 200)
            written = lines(try String(contentsOf: logs.appendingPathComponent("sync.log"), encoding: .utf8))
        }
        #expect(written.count == 201)
        for task in 0..<8 {
            for n in 0..<25 {
                let matching = written.filter { $0.contains("#\(task + 1) Recipe \(task): ") || $0.contains(#""id":\#(task + 1),"#) }
                    .filter { $0.contains("error number \(n) of task \(task)") }
                #expect(matching.count == 1)
            }
        }
        if mode == .json { for line in written { _ = try jsonObject(line) } }
    }

    // MARK: Formatting helpers

    @Test("sizes, rates, durations and timestamps for people")
    func humanFormats() {
        #expect(ByteFormat.describe(262_144) == "256.0 KiB")
        #expect(ByteFormat.describe(512) == "512 B")
        #expect(ByteFormat.describe(1536) == "1.5 KiB")
        #expect(ByteFormat.describe(1_048_575) == "1.0 MiB")
        #expect(ByteFormat.describe(5 << 30) == "5.0 GiB")
        #expect(ByteFormat.rate(1.2 * 1_048_576) == "1.2 MiB/s")
        #expect(ByteFormat.rate(512) == "0.5 KiB/s")
        #expect(ByteFormat.rate(.nan) == "0.0 KiB/s")
        #expect(DurationFormat.describe(2.44) == "2.4 s")
        #expect(DurationFormat.describe(45) == "45 s")
        #expect(DurationFormat.describe(250) == "4 min 10 s")
        #expect(DurationFormat.describe(300) == "5 min")
        #expect(DurationFormat.describe(3900) == "1 h 5 min")
        #expect(DurationFormat.describe(93_600) == "1 d 2 h")
        #expect(EventTimestamp.string(t0.addingTimeInterval(0.5)) == "2023-11-14T22:13:20.500Z")
        #expect(EventTimestamp.string(Date(timeIntervalSince1970: -0.25)) == "1969-12-31T23:59:59.750Z")
    }

    @Test("OneDecimal prints what String(format: \"%.1f\") prints: ties to even, values just under a half, large numbers")
    func oneDecimalMatchesPrintf() {
        var generator = SystemRandomNumberGenerator()
        let fixed: [Double] = [
            0, 0.05, 0.15, 0.25, 0.35, 0.45, 0.95, 1023.95, 1023.949_999, 9.95, 2.5, 123_456.789, 4.5e13, 99_999_999_999_999.9,
            -0.25, -1.35,
        ]
        let random = (0..<2_000).map { _ in Double.random(in: 0..<5_000, using: &generator) }
        let wide = (0..<500).map { _ in Double.random(in: 0..<1e14, using: &generator) }
        for value in fixed + random + wide {
            #expect(OneDecimal.string(value) == String(format: "%.1f", value), "\(value)")
        }
        // Beyond any size, rate or duration shown: Swift's own text, not a 300-digit number.
        #expect(OneDecimal.string(1e300) == "1e+300")
        #expect(OneDecimal.string(1e16) == "1e+16")
        #expect(OneDecimal.string(.infinity) == "inf")
    }

    @Test("terminal output of a restore: pulled recipes and downloaded images counted in the overall row, one summary; --verbose a line each")
    func restoreCounts() {
        let console = CapturingConsole()
        let output = TerminalSyncOutput(
            console: console, colour: false, clock: { t0 }, size: { TerminalSize(columns: 100, rows: 24) })
        for id in Int64(1)...3 {
            if id < 3 { output.emit(event(.downloaded, id: id, title: "Recipe \(id)", bytes: 100, at: 0)) }
            output.emit(event(.pulled, id: id, title: "Recipe \(id)", at: 0, version: 1))
        }
        output.emit(event(.conflict, id: 4, title: "Jam", error: "changed here and on the server: title", at: 0))
        output.finish(SyncSummary(pulled: 3))
        let text = console.stdout
        #expect(!text.contains("Recipe 1: pulled") && !text.contains("downloaded image"), "\(text)")
        #expect(text.contains("#4 Jam: conflict"), "a conflict keeps its line: \(text)")
        var state = SyncProgressState()
        for id in Int64(1)...3 {
            #expect(state.apply(event(.downloaded, id: id, bytes: 100, at: 0)) == false)
            #expect(state.apply(event(.pulled, id: id, at: 0, version: 1)) == false)
        }
        #expect(SyncProgressView.overallRow(state, now: t0, usable: 99) == "3 of 3 recipes done · 3 pulled · 3 images downloaded")
        var verbose = SyncProgressState()
        verbose.everyLine = true
        #expect(verbose.apply(event(.downloaded, id: 1, bytes: 100, at: 0)) && verbose.apply(event(.pulled, id: 1, at: 0, version: 1)))
        let loud = CapturingConsole()
        let every = TerminalSyncOutput(
            console: loud, colour: false, verbose: true, clock: { t0 }, size: { TerminalSize(columns: 100, rows: 24) })
        every.emit(event(.pulled, id: 1, title: "Recipe 1", at: 0, version: 1))
        every.finish(SyncSummary(pulled: 1))
        #expect(loud.stdout.contains("#1 Recipe 1: pulled"), "\(loud.stdout)")
    }
}

@Suite("recipes sync's exit status: 77 over 1 over 75 over 0")
struct SyncExitStatusTests {
    @Test(
        "each verdict has the contract's status, the most serious one winning",
        arguments: [
            (SyncSummary(), 0),
            (SyncSummary(done: 5), 0),
            (SyncSummary(done: 1, waiting: 1), 75),
            (SyncSummary(done: 1, cancelled: 1), 75),
            (SyncSummary(failed: 1), 1),
            (SyncSummary(done: 3, failed: 1, cancelled: 2, waiting: 4), 1),
            (SyncSummary(credentialsRefused: true), 77),
            (SyncSummary(done: 1, failed: 2, cancelled: 1, waiting: 3, credentialsRefused: true), 77),
        ] as [(SyncSummary, Int32)])
    func precedence(summary: SyncSummary, expected: Int32) {
        #expect(summary.exitStatus == expected)
    }
}
