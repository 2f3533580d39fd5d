import Foundation
import RecipeModels

/// Bytes sent over the last few seconds, for a transfer rate that follows changes and falls to zero in a stall.
struct RateMeter {
    /// How far back the rate looks.
    static let window: TimeInterval = 3
    /// A rate over less than this is noise, and not shown.
    static let shortestSpan: TimeInterval = 0.5

    /// When measuring began (a rate never averages over time before it).
    private(set) var since: Date
    /// Bytes sent and when, oldest first, none older than `window` before the latest.
    private var samples: [(time: Date, bytes: Int64)] = []

    /// Creates a meter that starts measuring at `since`.
    init(since: Date) {
        self.since = since
    }

    /// Counts `bytes` sent at `time`.
    mutating func record(_ bytes: Int64, at time: Date) {
        guard bytes > 0 else { return }
        samples.append((time, bytes))
        let horizon = time.addingTimeInterval(-Self.window)
        if let keep = samples.firstIndex(where: { $0.time > horizon }) {
            samples.removeFirst(keep)
        } else {
            samples.removeAll()
        }
    }

    /// Bytes per second over the window ending at `now`, or nil when measuring began too recently to tell.
    func rate(at now: Date) -> Double? {
        let span = min(Self.window, now.timeIntervalSince(since))
        guard span >= Self.shortestSpan else { return nil }
        let horizon = now.addingTimeInterval(-Self.window)
        let sent = samples.reduce(Int64(0)) { $1.time > horizon ? $0 + $1.bytes : $0 }
        return Double(sent) / span
    }
}

/// What the live display knows about a run: the recipes uploading now, in the order they started, and how the
/// others ended. Built only from events, so it can be tested without a terminal or a clock.
struct SyncProgressState {
    /// One recipe being uploaded (or waiting to retry within the run).
    struct Upload {
        var id: Int64
        /// The title, cleaned of control characters.
        var title: String
        var step: SyncEvent.Step?
        /// The revision the chain uploads.
        var revision: Int64?
        /// Bytes of the current step's body sent so far.
        var bytes: Int64 = 0
        var total: Int64?
        var attempt: Int?
        /// When a transient failure is retried, while waiting for it.
        var retryAt: Date?
        /// Why it is being retried, cleaned.
        var retryError: String?
        /// Whether the wait is for the network to come back (an `offline` event with a delay), not for a retry.
        var offline = false
        var meter: RateMeter
    }

    /// Whether every recipe pulled and image downloaded gets a line of its own (`--verbose`); else they are counted
    /// (`pulled`, `downloaded`) and shown in the overall row.
    var everyLine = false
    /// Recipes pulled and images downloaded without a line of their own.
    private(set) var pulled = 0, downloaded = 0
    /// Recipes being uploaded, in the order they started.
    private(set) var uploads: [Upload] = []
    /// How each recipe that is no longer uploading ended.
    private(set) var outcomes: [Int64: SyncEvent.Kind] = [:]
    /// Every recipe the run has mentioned.
    private(set) var seen: Set<Int64> = []
    /// Bytes sent by the whole run.
    private(set) var overall: RateMeter?
    /// How many recipes the run is expected to handle, when the caller knows (the due ones): the overall row counts
    /// against it from the first frame instead of against the recipes seen so far.
    private(set) var expected = 0
    /// The widest title of the uploads so far, or of those the run is expected to upload, in columns: the title
    /// column is that wide from the first frame and only grows, so that the bars keep their width.
    private(set) var widestTitle = 0

    /// Says that the run is expected to upload `recipes` recipes with these `titles` (before its first event).
    mutating func expect(recipes: Int, titles: [String]) {
        expected = recipes
        widestTitle = max(widestTitle, titles.map { TerminalText.width(TerminalText.clean($0)) }.max() ?? 0)
    }

    /// Applies `event`; returns true when it ends the recipe's part in the run (done, failed, cancelled, skipped,
    /// offline without a delay), which leaves a permanent line.
    @discardableResult
    mutating func apply(_ event: SyncEvent) -> Bool {
        seen.insert(event.id)
        if [.start, .progress, .retry].contains(event.kind) {  // a row of the live area
            widestTitle = max(widestTitle, TerminalText.width(TerminalText.clean(event.title)))
        }
        if overall == nil { overall = RateMeter(since: event.time) }
        switch event.kind {
        case .start:
            outcomes[event.id] = nil
            update(event) { upload in
                upload.step = event.step ?? upload.step
                upload.revision = event.revision ?? upload.revision
                upload.bytes = event.bytes ?? 0
                upload.total = event.total
                upload.attempt = event.attempt ?? upload.attempt
                upload.retryAt = nil
                upload.retryError = nil
                upload.offline = false
            }
            return false
        case .progress:
            let bytes = event.bytes ?? 0
            var sent: Int64 = 0
            update(event) { upload in
                sent = bytes >= upload.bytes ? bytes - upload.bytes : bytes
                upload.bytes = bytes
                upload.total = event.total ?? upload.total
                upload.step = event.step ?? upload.step
                upload.retryAt = nil
                upload.retryError = nil
                upload.offline = false
                upload.meter.record(sent, at: event.time)
            }
            overall?.record(sent, at: event.time)
            return false
        case .retry:
            wait(event)
            return false
        case .offline where event.delay != nil:
            wait(event)  // waiting for the network within the run; an `offline` without a delay ends the recipe
            return false
        case .merged where event.step != nil:
            return false  // a round of an upload under way (a stale write merged, written again), not its end
        case .done, .failed, .cancelled, .offline, .skipped, .pulled, .merged, .conflict, .removed, .downloaded:
            uploads.removeAll { $0.id == event.id }
            if event.kind == .downloaded {
                // A pulled recipe's image, before the recipe's own end: not an outcome.
                downloaded += 1
                return everyLine
            }
            outcomes[event.id] = event.kind
            if event.kind == .pulled { pulled += 1 }
            return everyLine || event.kind != .pulled
        }
    }

    /// Puts the recipe's upload into a wait within the run: for a retry, or for the network to come back.
    private mutating func wait(_ event: SyncEvent) {
        update(event) { upload in
            upload.step = event.step ?? upload.step
            upload.attempt = event.attempt ?? upload.attempt
            upload.retryAt = event.time.addingTimeInterval(max(0, event.delay ?? 0))
            upload.retryError = event.error.map(TerminalText.clean)
            upload.offline = event.kind == .offline
        }
    }

    /// Runs `change` on the recipe's upload, adding it first when the run had not started it.
    private mutating func update(_ event: SyncEvent, _ change: (inout Upload) -> Void) {
        if let index = uploads.firstIndex(where: { $0.id == event.id }) {
            change(&uploads[index])
        } else {
            var upload = Upload(
                id: event.id, title: TerminalText.clean(event.title), meter: RateMeter(since: event.time))
            change(&upload)
            uploads.append(upload)
        }
    }

    /// Recipes that ended in `kinds`.
    func count(_ kinds: SyncEvent.Kind...) -> Int { outcomes.values.count(where: { kinds.contains($0) }) }
}

/// The live area of the terminal output as rows of text: one per recipe uploading, then the overall row.
///
/// A pure function of the state, the present moment and the width, so every layout is testable; no row is wider
/// than `columns - 1` (the last column is left free: writing into it makes some terminals wrap).
enum SyncProgressView {
    /// The step column's width (`recipe`, `delete`, `image`).
    private static let stepWidth = 6
    /// The title column is at most a quarter of the width, but never cut below this many columns.
    private static let shortestTitle = 10
    /// The progress bar's narrowest and widest (brackets included).
    private static let shortestBar = 8, longestBar = 32

    /// The rows for `state` at `now` on a terminal `columns` wide, at most `maxRows` of them (the overall row
    /// always among them; recipes that do not fit are counted in an `… and N more` row).
    static func render(_ state: SyncProgressState, now: Date, columns: Int, maxRows: Int = 24) -> [String] {
        let usable = max(1, columns - 1)
        let maxRows = max(2, maxRows)
        var uploads = state.uploads
        var hidden = 0
        if uploads.count > maxRows - 1 {
            hidden = uploads.count - (maxRows - 2)
            uploads = Array(uploads.prefix(maxRows - 2))
        }
        let titleColumn = min(state.widestTitle, max(shortestTitle, usable / 4))
        var rows = uploads.map { row($0, now: now, usable: usable, titleColumn: titleColumn) }
        if hidden > 0 { rows.append(TerminalText.truncate("… and \(hidden) more uploading", to: usable)) }
        rows.append(overallRow(state, now: now, usable: usable))
        return rows
    }

    /// The columns of the fields after a bar, each fixed so that the bar keeps its width whatever they hold: the
    /// percentage, the sizes (`1023.9 KiB / 1023.9 KiB` at most), the rate (`1023.9 MiB/s`), the attempt (`attempt 9`).
    private static let percentSlot = 4, sizesSlot = 23, rateSlot = 11, attemptSlot = 10

    /// `Tomato soup  image   [######------]  50%  128.0 KiB / 256.0 KiB   64.0 KiB/s  attempt 2`: the title in
    /// its column, the bar in what is left once every field has its fixed column (8 to 32 columns): at a given width
    /// the bar keeps its size from the first frame to the last. Where not all fit, the attempt goes, then the rate
    /// (the attempt taking its place during a retry), then the sizes, then the bar. A body sent whole whose answer
    /// has not come reads `waiting for the server` (`waiting` where narrow) instead of its sizes and a rate that can
    /// only fall.
    static func row(_ upload: SyncProgressState.Upload, now: Date, usable: Int, titleColumn: Int) -> String {
        let step = (upload.step?.rawValue ?? "").padding(toLength: stepWidth, withPad: " ", startingAt: 0)
        let attempt = (upload.attempt ?? 1) > 1 ? "attempt \(upload.attempt ?? 1)" : nil
        let room = usable - titleColumn - stepWidth - 4
        var line = TerminalText.fit(upload.title, to: titleColumn) + "  " + step + "  "
        func finish(_ body: String) -> String {
            line += body
            while line.last == " " { line.removeLast() }
            return TerminalText.truncate(line, to: usable)
        }
        if let retryAt = upload.retryAt {
            let wait = retryAt.timeIntervalSince(now)
            var text: String
            if upload.offline {
                text = wait > 0 ? "offline, checking again in \(DurationFormat.describe(wait))" : "offline, checking"
                if let error = upload.retryError { text += ": " + error }
            } else {
                text = wait > 0 ? "retry in \(DurationFormat.describe(wait))" : "retrying"
                if let error = upload.retryError { text += " after " + error }
            }
            return finish(text)
        }
        if upload.step == .delete {
            return finish(["deleting", attempt].compactMap { $0 }.joined(separator: "  "))
        }
        if upload.step == .read || upload.step == .merge {
            let doing = upload.step == .read ? "reading the server's copy" : "merging the server's copy"
            return finish([doing, attempt].compactMap { $0 }.joined(separator: "  "))
        }
        guard let total = upload.total else {
            if upload.bytes > 0 {
                let sent = sizesText(upload) ?? ""
                let rate = upload.meter.rate(at: now).map(ByteFormat.rate)
                let body = [sent, rate, attempt].compactMap { $0 }.joined(separator: "  ")
                return finish(TerminalText.width(body) <= room ? body : sent)
            }
            let revision = upload.step == .recipe ? upload.revision.map { " revision \($0)" } ?? "" : ""
            return finish(["uploading" + revision, attempt].compactMap { $0 }.joined(separator: "  "))
        }
        let fraction = total > 0 ? Double(min(max(upload.bytes, 0), total)) / Double(total) : 1
        let percent = TerminalText.padLeft("\(SyncEventText.percent(upload.bytes, of: total))%", to: percentSlot)
        let sent = upload.bytes >= total
        let sizes = sent ? "waiting for the server" : sizesText(upload) ?? ""
        let rate = sent ? "" : upload.meter.rate(at: now).map(ByteFormat.rate) ?? ""
        func slot(_ text: String, _ width: Int) -> String { TerminalText.padLeft(text, to: width) }
        func leftSlot(_ text: String, _ width: Int) -> String { TerminalText.fit(text, to: width) }
        let sizesField = sent ? leftSlot(sizes, sizesSlot) : slot(sizes, sizesSlot)
        // Each layout: the fields and their fixed width in all (two columns between fields).
        let layouts: [(fields: [String], width: Int)] = [
            ([percent, sizesField, slot(rate, rateSlot), slot(attempt ?? "", attemptSlot)],
             percentSlot + sizesSlot + rateSlot + attemptSlot + 6),
            ([percent, sizesField, slot(attempt ?? rate, rateSlot)], percentSlot + sizesSlot + rateSlot + 4),
            ([percent, sent ? leftSlot("waiting", rateSlot) : slot(attempt ?? rate, rateSlot)], percentSlot + rateSlot + 2),
            ([percent], percentSlot),
        ]
        for layout in layouts {
            let bar = min(longestBar, room - layout.width - 1)  // 1: the space between the bar and the percentage
            if bar >= shortestBar {
                return finish(self.bar(fraction, width: bar) + " " + layout.fields.joined(separator: "  "))
            }
        }
        return finish(percent.trimmingCharacters(in: .whitespaces) + (attempt.map { "  " + $0 } ?? ""))
    }

    /// `128.0 KiB / 256.0 KiB`, or `128.0 KiB sent` when the total is unknown; nil for a deletion, a wait, or
    /// a body of unknown size not started yet.
    private static func sizesText(_ upload: SyncProgressState.Upload) -> String? {
        if upload.step == .delete || upload.retryAt != nil || (upload.total == nil && upload.bytes <= 0) { return nil }
        guard let total = upload.total else { return "\(ByteFormat.describe(upload.bytes)) sent" }
        return "\(ByteFormat.describe(upload.bytes)) / \(ByteFormat.describe(total))"
    }

    /// `[#####-----]`, `width` columns in all.
    static func bar(_ fraction: Double, width: Int) -> String {
        let inner = max(1, width - 2)
        let filled = min(inner, max(0, Int((fraction * Double(inner)).rounded(.down))))
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: inner - filled) + "]"
    }

    /// `3 of 10 recipes done · 1 failed · 2 waiting · 1.2 MiB/s`.
    static func overallRow(_ state: SyncProgressState, now: Date, usable: Int) -> String {
        let done = state.count(.done, .pulled), all = max(state.seen.count, state.expected)
        var rest: [String] = []
        let failed = state.count(.failed), cancelled = state.count(.cancelled)
        let waiting = state.count(.offline, .skipped)
        if failed > 0 { rest.append("\(failed) failed") }
        if cancelled > 0 { rest.append("\(cancelled) cancelled") }
        if waiting > 0 { rest.append("\(waiting) waiting") }
        if state.pulled > 0 { rest.append("\(state.pulled) pulled") }
        if state.downloaded > 0 { rest.append("\(state.downloaded) \(state.downloaded == 1 ? "image" : "images") downloaded") }
        // A rate only while bytes still flow: once every body is sent, it would only fall while the answers come.
        let sending = state.uploads.contains { upload in
            upload.retryAt == nil && (upload.total.map { upload.bytes < $0 } ?? (upload.bytes > 0))
        }
        if sending, let rate = state.overall?.rate(at: now) { rest.append(ByteFormat.rate(rate)) }
        let long = (["\(done) of \(all) \(all == 1 ? "recipe" : "recipes") done"] + rest).joined(separator: " · ")
        if TerminalText.width(long) <= usable { return long }
        let short = (["\(done)/\(all) done"] + rest).joined(separator: " · ")
        return TerminalText.truncate(short, to: usable)
    }
}
