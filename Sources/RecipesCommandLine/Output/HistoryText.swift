import Foundation
import RecipeModels
import RecipeStore

/// What `history` prints: a recipe's revisions newest first, each with its revision, when (local time), where it came
/// from and what changed; the newest changes of every recipe; the deleted recipes `undo` brings back. `--json` gives
/// the same as an array of objects.
struct HistoryText {
    /// How times are written (local time of this machine).
    var timeZone: TimeZone = .current
    /// Whose words the advice uses.
    var dialect: CommandDialect = .shell

    /// One line per revision of one recipe (`entries` oldest first, as the store gives them), newest first.
    func revisions(_ entries: [RevisionEntry]) -> String {
        guard let newest = entries.last else { return "" }
        let state = newest.deleted ? " (deleted; \(command("undo \(newest.recipeID)")) brings it back)" : ""
        var text = "recipe \(newest.recipeID) \"\(TerminalText.clean(newest.fields.title))\"\(state): "
            + "\(entries.count) revision\(entries.count == 1 ? "" : "s") kept here (at most \(RecipeStore.historyLimit))\n"
        let rows = Self.rows(entries).reversed().map { row in
            [String(row.entry.revision), time(row.entry.at), row.source, row.changes]
        }
        text += table([["rev", "when", "from", "what changed"]] + rows)
        return text
    }

    /// The newest changes of every recipe (`entries` newest first), each naming its recipe.
    func recent(_ entries: [RevisionEntry], all: (Int64) -> [RevisionEntry]) -> String {
        guard !entries.isEmpty else { return "no changes kept here yet\n" }
        var rowsByRecipe: [Int64: [Row]] = [:]
        var rows: [[String]] = []
        for entry in entries {
            let row = Self.row(of: entry, all: all, cache: &rowsByRecipe)
            rows.append([String(entry.recipeID), TerminalText.clean(entry.fields.title), String(entry.revision), time(entry.at),
                         row?.source ?? entry.origin.words, row?.changes ?? ""])
        }
        return table([["id", "title", "rev", "when", "from", "what changed"]] + rows)
    }

    /// The deleted recipes (each entry the deletion), newest first.
    func deleted(_ entries: [RevisionEntry]) -> String {
        guard !entries.isEmpty else { return "no deleted recipes kept here\n" }
        let rows = entries.map { [String($0.recipeID), TerminalText.clean($0.fields.title), time($0.at), $0.origin.words] }
        return table([["id", "title", "deleted", "how"]] + rows) + "\(command("undo <id>")) brings one back\n"
    }

    /// `--json`: an array of `{id, uuid, title, revision, at, origin, command, deleted, changes, restoredRevision}`,
    /// newest first (`entries` in that order; `all` gives each recipe's kept revisions, oldest first).
    func json(_ entries: [RevisionEntry], all: (Int64) -> [RevisionEntry]) -> String {
        var writer = JSONWriter()
        let formatter = ISO8601DateFormatter()
        var rowsByRecipe: [Int64: [Row]] = [:]
        writer.array(entries) { writer, entry in
            let row = Self.row(of: entry, all: all, cache: &rowsByRecipe)
            writer.object([
                "id": .integer(entry.recipeID), "uuid": .string(entry.uuid), "title": .string(entry.fields.title),
                "revision": .integer(entry.revision), "at": .string(formatter.string(from: entry.at)),
                "origin": .string(entry.origin.rawValue), "command": .string(entry.command),
                "deleted": .raw(entry.deleted ? "true" : "false"),
                "changes": .raw("[" + (row?.changeList ?? []).map(JSONWriter.quoted).joined(separator: ",") + "]"),
                "restoredRevision": .integer(row?.restoredRevision),
            ])
        }
        return writer.text + "\n"
    }

    // MARK: Rows

    /// One revision with what it changed from the one before it, in words.
    struct Row {
        var entry: RevisionEntry
        var changeList: [String]
        var restoredRevision: Int64?
        var source: String { entry.source(restoredRevision: restoredRevision) }
        var changes: String { changeList.isEmpty ? "—" : changeList.joined(separator: ", ") }
    }

    /// The row of `entry`, its recipe's revisions read (`all`) and compared once for all its entries (`cache`).
    static func row(of entry: RevisionEntry, all: (Int64) -> [RevisionEntry], cache: inout [Int64: [Row]]) -> Row? {
        let rows = cache[entry.recipeID] ?? rows(all(entry.recipeID))
        cache[entry.recipeID] = rows
        return rows.first { $0.entry.seq == entry.seq }
    }

    /// The rows of one recipe's `entries` (oldest first), in the same order.
    static func rows(_ entries: [RevisionEntry]) -> [Row] {
        entries.indices.map { index in
            let entry = entries[index]
            // An undo names the revision it went back to; one that brought a deleted recipe back says so instead.
            let restored = entry.restores.flatMap { seq in entries.first { $0.seq == seq && !$0.deleted }?.revision }
            var changes: [String]
            if entry.deleted {
                changes = ["deleted"]
            } else if index == 0 {
                changes = [.new, .import, .pull].contains(entry.origin) ? ["created"] : []
            } else {
                let before = entries[index - 1]
                changes = (before.deleted ? ["brought back"] : []) + RevisionChanges.between(before.fields, entry.fields)
            }
            return Row(entry: entry, changeList: changes, restoredRevision: restored)
        }
    }

    // MARK: Layout

    /// `2026-12-03 07:12` in local time.
    func time(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        func two(_ value: Int?) -> String { String(format: "%02d", value ?? 0) }
        return "\(parts.year ?? 0)-\(two(parts.month))-\(two(parts.day)) \(two(parts.hour)):\(two(parts.minute))"
    }

    /// Rows in columns two blanks apart, the first column right-aligned (numbers), widths as a terminal shows them;
    /// the last column is not padded.
    func table(_ rows: [[String]]) -> String {
        guard let columns = rows.first?.count else { return "" }
        let widths = (0..<columns).map { column in rows.map { TerminalText.width($0[column]) }.max() ?? 0 }
        return rows.map { row in
            row.indices.map { column -> String in
                let pad = String(repeating: " ", count: widths[column] - TerminalText.width(row[column]))
                if column == 0 { return pad + row[column] }
                return column == columns - 1 ? row[column] : row[column] + pad
            }.joined(separator: "  ")
        }.joined(separator: "\n") + "\n"
    }

    /// `command` as typed where the advice is read: `` `recipes undo 8` `` or `` `undo 8` ``.
    func command(_ command: String) -> String { dialect == .shell ? "`recipes \(command)`" : "`\(command)`" }
}
