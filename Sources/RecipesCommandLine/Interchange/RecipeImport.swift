import Foundation
import RecipeModels
import RecipeStore
import SystemFiles

/// `recipes import` and the REPL's `import`: schema.org recipes (JSON-LD files, saved recipe pages in JSON-LD,
/// microdata or RDFa, web addresses) and Paprika's exports become recipes, every property kept.
///
/// Each input is all or nothing: it is read (or fetched) and checked, the images it refers to are copied into the
/// media folder (fetched, for a page on the web), and its recipes are written in one transaction; an input that fails
/// is reported by name with the reason and leaves no trace, and the next one is imported all the same. A recipe whose
/// address (`url`) a recipe here has already updates that recipe (one revision), unless `asNew`; so does a Paprika
/// recipe whose Paprika `uid` one here has; the line printed says which.
struct RecipeImport {
    let store: RecipeStore
    let maxImageBytes: Int64
    /// Where relative paths of standard input's images are taken from.
    let workingDirectory: String
    /// Reads standard input, for the file `-`.
    let readStandardInput: () -> Data
    /// Makes the client that fetches pages, at the first web address (a run of files never loads libcurl).
    var makeFetch: () throws -> PageFetch = { throw CommandLineError("fetching pages is not available here") }
    /// `--url`: the address of the page the (one) input is, overriding what the page says.
    var pageURL: String?
    /// `--as-new`: a recipe whose address one here has already is imported as a second recipe.
    var asNew = false

    /// Files larger than this are refused rather than read (a recipe page is rarely over a few MiB).
    static let maxFileBytes = 64 << 20

    /// What became of one input.
    enum Outcome {
        /// Its recipes were written (or, with `--dry-run`, would be): the lines saying so, and notes for stderr.
        case imported([String], notes: [String])
        /// It failed; the message names the input and the reason.
        case failed(String)
    }

    /// Imports each of `inputs` (`-` is standard input, `http(s)://…` a page on the web); one outcome per input.
    func run(_ inputs: [String], dryRun: Bool) async -> [Outcome] {
        var fetch: PageFetch?
        var outcomes: [Outcome] = []
        for input in inputs {
            let name = input == "-" ? "standard input" : input
            do {
                if Self.isWebAddress(input), fetch == nil { fetch = try makeFetch() }
                outcomes.append(try await importInput(input, fetch: fetch, dryRun: dryRun))
            } catch {
                let message = (error as? any LocalizedError)?.errorDescription ?? "\(error)"
                outcomes.append(.failed("\(name): \(message); nothing of it was imported"))
            }
        }
        return outcomes
    }

    /// Whether `input` is a web address rather than a file.
    static func isWebAddress(_ input: String) -> Bool {
        let lower = input.lowercased()
        return lower.hasPrefix("http://") || lower.hasPrefix("https://")
    }

    /// One input: read or fetched, its recipes given their addresses and images, written.
    private func importInput(_ input: String, fetch: PageFetch?, dryRun: Bool) async throws -> Outcome {
        let source = try await read(input, fetch: fetch)
        let paprika = PaprikaExport.isExport(name: input, data: source.data)
        let recipes: [ImportedRecipe]
        do {
            recipes = paprika ? try PaprikaExport.recipes(in: source.data) : try RecipeJSONLD.recipes(inFile: source.data)
        } catch {
            throw CommandLineError(error.message)
        }
        if paprika, pageURL != nil {
            throw CommandLineError("--url is the address of a saved page; a Paprika export keeps each recipe's own (source_url)")
        }
        var canonical: String?
        if !paprika {
            let html = String(decoding: source.data.prefix(Self.maxFileBytes), as: UTF8.self)
            canonical = RecipeJSONLD.canonicalLink(inHTML: html).flatMap { Self.resolve($0, against: pageURL ?? source.address) }
        }
        var notes: [String] = []
        var writes: [ImportWrite] = []
        var staged: [StagedImage] = []
        // The recipes here each imported one is the same as, read before any is written: those of its Paprika uid
        // (one reading of the store for the whole export), else those of its address.
        let paprikaIDs = paprika ? try store.recipeIDsByPaprikaUID() : [:]
        func sameRecipes(_ recipe: ImportedRecipe, url: String) throws(StoreError) -> [Int64] {
            if let uid = recipe.paprikaUID { return paprikaIDs[uid] ?? [] }
            return try store.recipeIDs(withURL: url)
        }
        var same: [[Int64]] = []
        do {
            for (index, recipe) in recipes.enumerated() {
                var content = recipe.content
                if !paprika {
                    content.details.url = Self.address(
                        explicit: pageURL, canonical: canonical, recipeURL: content.details.url, fetched: source.address,
                        index: index, count: recipes.count)
                }
                var new = RecipeStore.NewRecipe(content: content, received: recipe.received)
                if !dryRun {
                    let image = try await attach(recipe.image, of: content.title, source: source, fetch: fetch, notes: &notes)
                    new.image = image.staged
                    new.remoteImageURL = image.remote
                    if let copy = image.staged { staged.append(copy) }
                } else if case .local(let path) = recipe.image, source.address == nil {
                    try Self.checkReadable(Self.path(path, in: source.folder))
                }
                same.append(try sameRecipes(recipe, url: content.details.url))
                writes.append(ImportWrite(recipe: new, replacing: asNew ? nil : same[index].first))
            }
        } catch {
            staged.forEach(store.media.discard)
            throw error
        }
        if dryRun {
            return .imported(zip(recipes, writes).map { recipe, write in
                let described = Self.describe(recipe, from: source.folder)
                return write.replacing.map { "would update \($0): " + described } ?? "would import: " + described
            }, notes: [])
        }
        let written = try store.importRecipes(writes)
        let lines = zip(same, zip(writes, written)).map { same, pair in
            let (write, result) = pair
            let url = write.recipe.content.details.url
            return Self.line(result.recipe, result.outcome, address: paprika ? input : url, asNewOf: asNew
                ? same.filter { $0 != result.recipe.id }
                : [])
        }
        return .imported(lines, notes: notes)
    }

    /// The line saying what became of one recipe.
    static func line(_ recipe: Recipe, _ outcome: ImportOutcome, address: String, asNewOf others: [Int64]) -> String {
        let title = TerminalText.clean(recipe.title)
        switch outcome {
        case .created where !others.isEmpty:
            let names = others.map(String.init).joined(separator: ", ")
            return "imported \(recipe.id): \(title) (a second recipe of \(address); \(names) has it too)"
        case .created: return "imported \(recipe.id): \(title)"
        case .updated: return "updated \(recipe.id): \(title) (imported again from \(address), revision \(recipe.sync.revision))"
        case .unchanged: return "unchanged \(recipe.id): \(title) (it already is as \(address) has it)"
        }
    }

    /// The address a recipe keeps as its `url`: for the one recipe of an input, `--url`, else the page's canonical
    /// link, else its own JSON-LD `url`, else the address it was fetched from; for one of several, its own `url`,
    /// else the page's address with `#recipe-N` (so that each is found again when the page is imported again).
    static func address(
        explicit: String?, canonical: String?, recipeURL: String, fetched: String?, index: Int, count: Int
    ) -> String {
        if count == 1 {
            return [explicit, canonical, recipeURL, fetched].lazy.compactMap { $0 }.first { !$0.isEmpty } ?? ""
        }
        if !recipeURL.isEmpty { return recipeURL }
        guard let page = [explicit, canonical, fetched].lazy.compactMap({ $0 }).first(where: { !$0.isEmpty }) else { return "" }
        let base = page.split(separator: "#", maxSplits: 1).first.map(String.init) ?? page
        return base + "#recipe-\(index + 1)"
    }

    /// `reference` resolved against `base` (a page's address); nil when it is not an http(s) address then.
    static func resolve(_ reference: String, against base: String?) -> String? {
        let resolved = base.flatMap { URL(string: reference, relativeTo: URL(string: $0))?.absoluteURL.absoluteString }
            ?? reference
        return isWebAddress(resolved) ? resolved : nil
    }

    // MARK: Reading

    /// An input's bytes, and where its relative references are resolved: a file's folder, or a page's address.
    struct Source {
        var data: Data
        var folder: String
        /// The address the page was fetched from (after redirects); nil for a file.
        var address: String?
    }

    /// The bytes of `input`: a file, standard input for `-`, or a page fetched from the web.
    private func read(_ input: String, fetch: PageFetch?) async throws -> Source {
        if Self.isWebAddress(input), let fetch {
            let page = try await fetch.fetch(
                input, maxBytes: PageFetch.maxPageBytes,
                accept: "text/html,application/xhtml+xml,application/ld+json;q=0.9,application/json;q=0.8,*/*;q=0.1")
            let readable = ["", "text/html", "application/xhtml+xml", "application/ld+json", "application/json", "text/plain"]
            guard readable.contains(page.mediaType) else {
                throw CommandLineError(
                    "not a web page (Content-Type \(page.mediaType)); give the address of a recipe's page")
            }
            return Source(data: page.data, folder: workingDirectory, address: page.url)
        }
        if input == "-" { return Source(data: readStandardInput(), folder: workingDirectory, address: nil) }
        // Only a regular file is read (a named pipe would hold the import, a device could be anything), and never the
        // home's database (see `DatabaseFiles`).
        let data: Data
        let maxBytes = PaprikaExport.isExportName(input) ? PaprikaExport.maxFileBytes : Self.maxFileBytes
        do throws(UserFile.Refusal) {
            data = try UserFile.read(input, maxBytes: Int64(maxBytes), refusing: DatabaseFiles(home: store.home))
        } catch {
            switch error {
            case .notFound: throw CommandLineError("no such file; check the path")
            case .notRegular(.folder): throw CommandLineError("a folder; give the files in it (e.g. DIR/*.json)")
            case .notRegular: throw CommandLineError("not a regular file (a named pipe, a socket or a device); save it to a file first")
            case .databaseFile: throw CommandLineError("this home's database (or one of its files), not a recipe file")
            case .unreadable(let reason): throw CommandLineError("cannot read it: \(reason); check its permissions")
            case .tooLarge(let size):
                throw CommandLineError("\(size) bytes, over the \(maxBytes >> 20) MiB a recipe file may have")
            }
        }
        return Source(data: data, folder: URL(fileURLWithPath: input).deletingLastPathComponent().path, address: nil)
    }

    /// A local image reference as a path: absolute, or relative to `folder`.
    static func path(_ reference: String, in folder: String) -> String {
        reference.hasPrefix("/") ? reference : folder + "/" + reference
    }

    /// Whether an image file a dry run would copy is there and readable (its bytes are checked by the real import).
    private static func checkReadable(_ path: String) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw StoreError(.imageNotFound(path: path))
        }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw StoreError(.imageUnreadable(path: path, detail: "permission denied"))
        }
    }

    /// `"Tomato soup" (5 ingredients, 3 steps, image https://…)`.
    static func describe(_ recipe: ImportedRecipe, from folder: String) -> String {
        let content = recipe.content
        var parts = [
            "\(content.ingredients.count) ingredient\(content.ingredients.count == 1 ? "" : "s")",
            "\(content.steps.count) step\(content.steps.count == 1 ? "" : "s")",
        ]
        switch recipe.image {
        case .local(let path): parts.append("image " + Self.path(path, in: folder))
        case .remote(let url): parts.append("image " + url)
        case .embedded(let bytes): parts.append("photo of \(bytes.count) bytes")
        case nil: break
        }
        return "\(TerminalText.clean(content.title)) (\(parts.joined(separator: ", ")))"
    }
}
