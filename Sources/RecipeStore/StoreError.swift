import Foundation
import SystemFiles

/// A failure of the local store, worded for the person at the terminal: what is wrong and what to do.
public struct StoreError: Error, LocalizedError, Sendable, Equatable {
    /// What went wrong, as a case a caller can match.
    public enum Kind: Sendable, Equatable {
        case notADatabase(path: String)
        case foreignDatabase(path: String)
        case newerDatabase(path: String, unknownMigrations: [String])
        /// SQLite found the file damaged; `changeDiscarded` when it was met inside a change, which was rolled back.
        case corruptDatabase(path: String, detail: String, changeDiscarded: Bool)
        case cannotOpen(path: String, detail: String)
        /// The database file has another name (`detail`: a symbolic link, hard links): refused, left untouched.
        case linkedDatabase(path: String, detail: String)
        case unknownRecipe(id: Int64)
        /// No recipe's uuid starts with the prefix a person gave.
        case noRecipeWithUUID(prefix: String)
        /// Several recipes' uuids start with the prefix a person gave (up to six of them).
        case ambiguousUUID(prefix: String, matches: [UUIDMatch])
        /// A word of digits is a recipe's id (`id`) and the start of other recipes' uuids (`uuids`, up to six).
        case ambiguousReference(word: String, id: UUIDMatch, uuids: [UUIDMatch])
        /// No recipe not deleted has a title that is or starts with the name a person gave.
        case noRecipeTitled(name: String)
        /// Several recipes' titles are (or start with) the name.
        case ambiguousTitle(name: String, matches: [UUIDMatch])
        /// A word that may be a uuid start or a title names no recipe either way.
        case noRecipeWithUUIDOrTitle(word: String)
        /// A word starts the uuid of some recipes and the title of others.
        case ambiguousUUIDOrTitle(word: String, uuids: [UUIDMatch], titles: [UUIDMatch])
        case recipeDeleted(id: Int64)
        case indexOutOfRange(what: String, index: Int, count: Int, id: Int64, allowingEnd: Bool = false)
        case emptyTitle
        case invalidText(field: TextField, problem: TextProblem)
        /// A list (`what`: "ingredients" or "steps") would hold `count` entries, more than `RecipeLimits.listLength`.
        case tooManyParts(what: String, count: Int)
        case recipeExists(uuid: String)
        case changeRefused
        case imageNotFound(path: String)
        /// A file given to read (an image, a recipe file) is the home's database or one of its files.
        case databaseFileGiven(path: String)
        case imageNotRegularFile(path: String, type: SpecialFile)
        case imageUnreadable(path: String, detail: String)
        case imageTooLarge(path: String, bytes: Int64, limit: Int64)
        case imageNotRecognised(path: String)
        case noImage(id: Int64)
        case fileSystem(path: String, detail: String)
        case notAFolder(path: String)
        /// A folder recipes writes and deletes its own files in (`media/`, `outbox/`, `images/`) is a symbolic link.
        case symlinkedFolder(path: String, destination: String)
        case database(detail: String)
        /// The disk holding the database is full (`freeBytes` left on it); `changeDiscarded` when a change was rolled
        /// back.
        case diskFull(path: String, freeBytes: Int64, changeDiscarded: Bool)
        case downloadRefused(sha256: String, reason: String)
        case unknownConflict(id: Int64)
        case resolution(detail: String)
        case badSearch(String)
        case noNutrition(key: String, id: Int64, present: [String])
        /// `recipes undo` cannot go back (`detail` says why and what to do instead).
        case undo(detail: String)
    }

    /// What a path given as an image is when it is not a regular file.
    public enum SpecialFile: Sendable, Equatable {
        case folder
        case namedPipe
        case socket
        case device
        /// Anything else that is not a regular file.
        case other
    }

    /// What went wrong.
    public var kind: Kind

    /// Creates a store error.
    public init(_ kind: Kind) { self.kind = kind }

    /// The error of a file-system call that failed: the path, and the system's words for why.
    init(_ error: ErrnoError) { self.init(.fileSystem(path: error.path, detail: error.reason)) }

    /// One line saying what is wrong and what to do.
    public var errorDescription: String? {
        switch kind {
        case .notADatabase(let path):
            return "\(path) is not a SQLite database; move it aside or choose another home with --home"
        case .foreignDatabase(let path):
            return "\(path) is a SQLite database that recipes did not create; move it aside or choose another home with --home"
        case .newerDatabase(let path, let unknown):
            return "\(path) was written by a newer version of recipes (unknown migration \(unknown.joined(separator: ", "))); "
                + "upgrade recipes to use it; the file was left untouched"
        case .corruptDatabase(let path, let detail, let changeDiscarded):
            return "\(path) is damaged (\(detail)); " + (changeDiscarded ? "this change was not saved, and " : "")
                + "recipes writes nothing more to it: run `recipes doctor` to check it and save every readable recipe "
                + "into a new database"
        case .cannotOpen(let path, let detail):
            return "cannot open \(path): \(detail); check the path and its permissions"
        case .linkedDatabase(let path, let detail):
            return "\(path) is \(detail); recipes uses a database under its own name only (SQLite keeps its log beside "
                + "each name, and two names of one database lose changes and damage it): put the database itself there "
                + "(`cp --remove-destination` the file it names, once no recipes command runs), or choose that home "
                + "with --home; nothing was changed"
        case .unknownRecipe(let id):
            return "no recipe with id \(id); `list` shows the ids"
        case .noRecipeWithUUID(let prefix):
            return "no recipe here has a uuid starting with \(prefix); `status` shows each recipe's uuid (a recipe made "
                + "on another device is here once a sync has pulled it)"
        case .ambiguousUUID(let prefix, let matches):
            let listed = matches.prefix(5).map { "\($0.id) \($0.title) (\($0.uuid))" }.joined(separator: ", ")
            let more = matches.count > 5 ? ", …" : ""
            return "\(prefix) is the start of the uuid of several recipes: \(listed)\(more); give more of the uuid, or the id"
        case .ambiguousReference(let word, let byID, let uuids):
            let listed = uuids.prefix(5).map { "\($0.id) \($0.title) (\($0.uuid))" }.joined(separator: ", ")
            let more = uuids.count > 5 ? ", …" : ""
            return "\(word) is both the id of recipe \(byID.id) \(byID.title) (\(byID.uuid)) and the start of the uuid of "
                + "\(listed)\(more); name the one you mean by its uuid (its first 8 characters, as `status` shows them)"
        case .noRecipeTitled(let name):
            return "no recipe here is titled \"\(name)\" or has a title starting so (case and accents aside); `list` "
                + "shows the titles and ids (a recipe made on another device is here once a sync has pulled it)"
        case .noRecipeWithUUIDOrTitle(let word):
            return "no recipe here has a uuid or a title starting with \"\(word)\"; `list` shows the titles and ids, "
                + "`status` the uuids"
        case .ambiguousTitle(let name, let matches):
            return "\"\(name)\" names several recipes: \(Self.listed(matches)); name the one you mean by its id "
                + "(the number before its title), or give more of its title"
        case .ambiguousUUIDOrTitle(let word, let uuids, let titles):
            return "\"\(word)\" starts the uuid of \(Self.listed(uuids, uuids: true)) and the title of "
                + "\(Self.listed(titles)); name the one you mean by its id (the number before its title)"
        case .recipeDeleted(let id):
            return "recipe \(id) is deleted; its deletion is sent to the server on the next sync"
        case .indexOutOfRange(let what, let index, let count, let id, let allowingEnd):
            let last = allowingEnd ? count + 1 : count
            let range = last == 0 ? "it has none" : "choose 1 to \(last)"
            return "recipe \(id) has no \(what) \(index); \(range)"
        case .emptyTitle:
            return "a title cannot be empty; give the recipe a name"
        case .databaseFileGiven(let path):
            return "\(path) is this home's database (or one of its files), which only SQLite may open; give another file"
        case .imageNotFound(let path):
            return "\(path): no such file; check the path"
        case .invalidText(let field, let problem):
            return Self.describe(problem, in: field)
        case .tooManyParts(let what, let count):
            return "the recipe would have \(count) \(what); recipes keeps at most \(RecipeLimits.listLength) \(what) per "
                + "recipe: split it into several recipes"
        case .recipeExists(let uuid):
            return "a recipe with uuid \(uuid) exists already; nothing was created"
        case .changeRefused:
            return "the database refused the change as invalid, and nothing was changed; check the values given "
                + "(if they look right, this is a bug in recipes: please report it)"
        case .imageNotRegularFile(let path, let type):
            let what: String
            switch type {
            case .folder: return "\(path) is a folder, not an image file; give the path of an image file"
            case .namedPipe: what = "is a named pipe (FIFO), not an image file"
            case .socket: what = "is a socket, not an image file"
            case .device: what = "is a device, not an image file"
            case .other: what = "is not a regular file"
            }
            return "\(path) \(what); save the image to a file and give its path"
        case .imageUnreadable(let path, let detail):
            return "cannot read \(path): \(detail); check its permissions"
        case .imageTooLarge(let path, let bytes, let limit):
            return "\(path) is \(bytes) bytes, over the \(limit)-byte limit; shrink it or raise image.max_bytes with `recipes config set`"
        case .imageNotRecognised(let path):
            return "\(path) is not a JPEG, PNG, GIF or WebP image (checked by its bytes); convert it to one of those"
        case .noImage(let id):
            return "recipe \(id) has no image; nothing to clear"
        case .fileSystem(let path, let detail):
            return "cannot write \(path): \(detail); check free space and permissions"
        case .notAFolder(let path):
            return "\(path) exists and is not a folder; choose another home with --home or RECIPES_HOME"
        case .symlinkedFolder(let path, let destination):
            return "\(path) is a symbolic link to \(destination); recipes writes and deletes its own files in that folder, "
                + "so it will not follow a link out of its home: remove the link (`rm \(path)` leaves \(destination) as it "
                + "is) and run the command again"
        case .database(let detail):
            return "database error: \(detail)"
        case .diskFull(let path, let free, let changeDiscarded):
            return "the disk holding \(path) is full (\(free / 1024) KiB free), so recipes cannot use its database; "
                + (changeDiscarded ? "this change was not saved; " : "")
                + "free some space there (or move the home and give it with --home) and try again"
        case .downloadRefused(let sha256, let reason):
            return "the server's image \(sha256.prefix(12))… was not kept: \(reason); nothing of it was applied"
        case .unknownConflict(let id):
            return "recipe \(id) has no conflict to resolve; `recipes conflicts` lists the recipes that do"
        case .resolution(let detail):
            return detail
        case .badSearch(let message):
            return message
        case .noNutrition(let key, let id, let present):
            let have = present.isEmpty ? "it has none" : "it has " + present.joined(separator: ", ")
            return "recipe \(id) has no nutrition \(key) to remove; \(have)"
        case .undo(let detail):
            return detail
        }
    }
}

extension StoreError {
    /// Recipes an ambiguous name matched, as one list: `2 "Lasagne al forno", 5 "Lasagne verde"` (with each uuid
    /// when `uuids`), the first ten and a count of the rest.
    static func listed(_ matches: [UUIDMatch], uuids: Bool = false) -> String {
        let shown = matches.prefix(10).map { "\($0.id) \"\($0.title)\"" + (uuids ? " (\($0.uuid))" : "") }
        let more = matches.count > 10 ? " and \(matches.count - 10) more" : ""
        return shown.joined(separator: ", ") + more
    }

    /// One line saying what is wrong with a text given for `field`, and what to do.
    static func describe(_ problem: TextProblem, in field: TextField) -> String {
        let subject = field == .keywords ? "the keywords contain" : "the \(field.rawValue) contains"
        switch problem {
        case .nulByte:
            return "\(subject) a NUL byte (\\0), which recipes cannot store; remove it and try again"
        case .controlCharacter(let value):
            let code = String(value, radix: 16, uppercase: true)
            let padded = String(repeating: "0", count: max(0, 4 - code.count)) + code
            return "\(subject) the control character U+\(padded), which recipes does not store; remove it and try again"
        case .lineBreak:
            let advice: String
            switch field {
            case .ingredient: advice = "an ingredient is one line: add each line as an ingredient of its own"
            case .keywords: advice = "keywords are one line: separate them with commas"
            default: advice = "the \(field.rawValue) is one line: join its lines"
            }
            return "\(subject) a line break; \(advice)"
        }
    }

    /// The error for a change SQLite refused by a constraint of the schema (`SQLITE_CONSTRAINT`), from the
    /// constraint's message, which is never shown: the person at the terminal gets what is wrong in the recipe's
    /// words. `uuid` is the identity of a recipe being created.
    static func refusedChange(constraintMessage message: String?, uuid: String? = nil) -> StoreError {
        let message = message ?? ""
        if message.hasPrefix("CHECK constraint failed: length(title)") { return StoreError(.emptyTitle) }
        if let uuid, message.hasPrefix("UNIQUE constraint failed: recipes.uuid") {
            return StoreError(.recipeExists(uuid: uuid))
        }
        return StoreError(.changeRefused)
    }
}
