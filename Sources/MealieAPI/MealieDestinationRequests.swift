import Foundation
import RecipeModels
import Transport

/// The operations a sync needs from a destination, for a Mealie 2.x: identity, changes since a cursor, deletions,
/// reading one recipe, creating it exactly once, writing it conditionally on a base, its image up and down, and
/// deleting it. Each is a short sequence of requests through the project's `HTTPClient` whose decisions are the
/// plain functions of this module (`RecipeCreation`, `MealieMapping`, `ChangeFeed`, `DeletionCheck`,
/// `ImageIdentity`); each fails with a `MealieFailure` (docs/mealie.md, "The destination's operations").
///
/// Mealie has no version and no conditional write: its `updatedAt` stands in for the version, and a write reads the
/// recipe first and compares. What remains is the window between that read and the `PATCH` (docs/mealie.md).
public struct MealieDestinationRequests: Sendable {
    /// The Mealie's requests.
    public let server: MealieServer
    let client: HTTPClient
    let token: String?
    let now: @Sendable () -> Date
    let newID: @Sendable () -> UUID

    /// Operations on the Mealie `server` through `client` (which carries `token`, redacted from every message);
    /// `now` anchors `Retry-After` dates, `newID` makes the ids of new ingredients and steps.
    public init(server: MealieServer, client: HTTPClient, token: String?, now: @escaping @Sendable () -> Date = { Date() },
                newID: @escaping @Sendable () -> UUID = { UUID() }) {
        self.server = server
        self.client = client
        self.token = token
        self.now = now
        self.newID = newID
    }

    /// What a conditional write found.
    public enum WriteOutcome: Sendable, Equatable {
        /// Written (or Mealie had these fields already): the recipe as stored, its `updatedAt` the new base.
        case written(MealieRecipe)
        /// Someone wrote the recipe since `base`: nothing was sent; Mealie's copy, for the sync's three-way merge.
        case stale(MealieRecipe)
        /// Mealie has no such recipe (deleted there).
        case gone
    }

    /// What a creation found.
    public enum CreateOutcome: Sendable, Equatable {
        /// Created now, with every field (what the import could not carry written right after): the recipe as stored.
        case created(MealieRecipe)
        /// An earlier attempt had created it (its answer lost, its process killed): Mealie's copy, as that attempt
        /// left it and as anyone may have edited it since. Nothing more was written: the sync compares it with the
        /// draft that attempt sent and writes conditionally on its `updatedAt`, or merges.
        case found(MealieRecipe)

        /// The recipe, either way.
        public var recipe: MealieRecipe {
            switch self {
            case .created(let recipe), .found(let recipe): recipe
            }
        }
    }

    /// What a deletion found.
    public enum DeleteOutcome: Sendable, Equatable {
        /// Deleted now.
        case deleted
        /// It was gone already.
        case alreadyGone
        /// Someone wrote it since `base`: not deleted; Mealie's copy, for the sync to decide (a conflict).
        case stale(MealieRecipe)
    }

    // MARK: Identity

    /// The token's group, whose id names this Mealie's recipes (a cursor belongs to it).
    public func identity() async throws(MealieFailure) -> MealieGroup {
        let result = await send(server.group())
        if case .success(let response) = result, case .success(let group) = MealieAnswer.group(response) { return group }
        throw failure(result, MealieAnswer.group, recipeScoped: false)
    }

    // MARK: One recipe

    /// Recipe `id` as Mealie has it now, nil when it has none.
    public func read(id: UUID) async throws(MealieFailure) -> MealieRecipe? {
        let result = await send(server.recipe(id: id))
        let read = { (response: HTTPResponse) in
            MealieAnswer.wholeRecipe(response, id: id, request: "the request for recipe \(id.lowercased)")
        }
        if case .success(let response) = result, case .success(let recipe) = read(response) { return recipe }
        throw failure(result, read, recipeScoped: true)
    }

    /// Creates `fields` as the Mealie recipe of the local recipe `uuid` (under `MealieRecipeID.of(uuid)`), exactly
    /// once: when an earlier attempt may have reached Mealie (`mayExist`), the id is looked up first and a recipe
    /// found is the one that attempt made (`.found`, no import sent); otherwise the zip import, always read back
    /// (`RecipeCreation`): an import Mealie refused because the id exists is `.found` too. A recipe created now gets
    /// what the import cannot carry (the `recipes.…` extras, tools still to create) by a write conditional on its
    /// `updatedAt` (`.created`).
    public func create(_ fields: RecipeFields, uuid: UUID, mayExist: Bool) async throws(MealieFailure) -> CreateOutcome {
        let id = MealieRecipeID.of(uuid)
        if mayExist, let found = try await read(id: id) { return .found(found) }
        let recipe: MealieRecipe
        var tools: [MealieOrganizer]?
        if !fields.details.tool.isEmpty { tools = try await organizers(.tools) }
        let document = MealieMapping.importDocument(fields, id: id, tools: tools ?? [], newID: newID)
        var random = SystemRandomNumberGenerator()
        guard let form = MultipartForm.recipeImport(RecipeArchive.zip(recipeJSON: document.data()),
                                                    boundary: MultipartForm.randomBoundary(using: &random))
        else { throw .retry(reason: "the multipart boundary occurs in the archive", after: nil) }
        let imported = await send(server.importRecipe(form))
        switch RecipeCreation.afterImport(imported, now: now(), redacting: token) {
        case .readBack(let status):
            let back = await send(server.recipe(id: id))
            switch RecipeCreation.afterReadBack(back, id: id, importStatus: status, now: now(), redacting: token) {
            case .created:
                let read = { (response: HTTPResponse) in
                    MealieAnswer.wholeRecipe(response, id: id, request: "the request for recipe \(id.lowercased)")
                }
                guard case .success(let response) = back, case .success(let stored?) = read(response) else {
                    throw failure(back, read, recipeScoped: true)
                }
                if status != 201 { return .found(stored) } // the id was taken: an earlier import landed
                recipe = stored
            case let next: throw Self.failure(of: next)
            }
        case let next:
            throw Self.failure(of: next)
        }
        // A title Mealie has already (by its slug) got another name ("Pancakes (1)"): the recipe keeps that name.
        let chosen = recipe.document["name"]?.text
        switch try await write(fields, id: id, base: recipe.stamp.updatedAt, current: recipe, catalog: tools.map { [.tools: $0] } ?? [:],
                               nameInMealie: chosen == fields.title ? nil : chosen) {
        case .written(let written): return .created(written)
        case .stale(let current): return .found(current) // written by someone between two requests: theirs to merge
        case .gone: throw .retry(reason: "recipe \(id.lowercased) was deleted in Mealie right after its creation", after: nil)
        }
    }

    /// Writes `fields` to recipe `id` if Mealie's `updatedAt` is still `base`: reads it, compares, and sends a `PATCH`
    /// of only the fields that differ. When the fields name tags, categories or tools the recipe does not have, the
    /// group's are listed (and the missing ones created), then the recipe is read and compared again. Stale or gone,
    /// nothing is sent.
    public func write(_ fields: RecipeFields, id: UUID, base: MealieTimestamp) async throws(MealieFailure) -> WriteOutcome {
        try await write(fields, id: id, base: base, current: nil)
    }

    /// `write(_:id:base:)` whose first read is `current` when the caller has just read it (the creation's read-back,
    /// the sync's check of the base). `catalog` holds the organizers listed already (the tools a creation listed).
    /// `nameInMealie` is the name Mealie gave the recipe at its creation when its title was taken.
    ///
    /// A rename Mealie refuses because another recipe's name slugifies alike (`400 Recipe already exists`, nothing
    /// written) is sent again with the next free name of Mealie's form, `Title (1)` … `Title (10)`, the title kept
    /// beside it (`MealieMapping+Title`); the recipe's other fields go in the same `PATCH`.
    public func write(_ fields: RecipeFields, id: UUID, base: MealieTimestamp, current known: MealieRecipe?,
               catalog listed: [OrganizerKind: [MealieOrganizer]] = [:],
               nameInMealie chosen: String? = nil) async throws(MealieFailure) -> WriteOutcome {
        var catalog = listed
        var known = known
        var nameInMealie = chosen
        var alternatives = 0
        var round = 0
        while true {
            // Read (again after organizer requests), so that only one round trip separates the check from the PATCH.
            let fresh: MealieRecipe?
            if let given = known { fresh = given } else { fresh = try await read(id: id) }
            known = nil
            guard let current = fresh else { return .gone }
            guard current.stamp.updatedAt == base else { return .stale(current) }
            switch MealieMapping.write(fields, over: current.document, catalog: catalog, newID: newID, nameInMealie: nameInMealie) {
            case .patch(let body) where body.isEmpty:
                return .written(current)
            case .patch(let body):
                let result = await send(server.patchRecipe(id: id, body: MealieJSON.object(body).data()))
                if body["name"] != nil, case .success(let response) = result, MealieAnswer.isNameTaken(response) {
                    alternatives += 1
                    guard alternatives <= MealieMapping.alternativeNames else {
                        throw .refused(message: "Mealie has recipes named \"\(fields.title)\" and \"\(fields.title) (1)\" to "
                            + "\"\(fields.title) (\(MealieMapping.alternativeNames))\", or named so that their slugs are alike; "
                            + "rename this one (`recipes title <id> <title>`) and sync again")
                    }
                    nameInMealie = MealieMapping.alternativeName(fields.title, alternatives)
                    known = current // refused: nothing was written, the copy is still Mealie's
                    continue
                }
                return .written(try patched(result, id: id))
            case .createOrganizers(let missing):
                round += 1
                guard round < 3 else {
                    throw .retry(reason: "Mealie did not list the \(missing.values.joined().sorted().first ?? "") it was asked to create", after: nil)
                }
                for (kind, names) in missing {
                    var list: [MealieOrganizer]
                    if let known = catalog[kind] { list = known } else { list = try await organizers(kind) }
                    var relist = false
                    for name in names where MealieMapping.organizer(named: name, in: [], catalog: list) == nil {
                        if let made = try await createOrganizer(kind, name: name) { list.append(made) } else { relist = true }
                    }
                    catalog[kind] = relist ? try await organizers(kind) : list
                }
            }
        }
    }

    /// Deletes recipe `id` if Mealie's `updatedAt` is still `base` (nil: whatever it is).
    public func delete(id: UUID, base: MealieTimestamp?) async throws(MealieFailure) -> DeleteOutcome {
        guard let current = try await read(id: id) else { return .alreadyGone }
        if let base, current.stamp.updatedAt != base { return .stale(current) }
        let result = await send(server.deleteRecipe(id: id))
        let read = { (response: HTTPResponse) in MealieAnswer.deletion(response, id: id) }
        if case .success(let response) = result, case .success(let now) = read(response) { return now ? .deleted : .alreadyGone }
        throw failure(result, read, recipeScoped: true)
    }

    // MARK: Parts

    func patch(id: UUID, body: [String: MealieJSON]) async throws(MealieFailure) -> MealieRecipe {
        try patched(await send(server.patchRecipe(id: id, body: MealieJSON.object(body).data())), id: id)
    }

    /// The recipe as stored after the `PATCH` of it that answered `result`.
    func patched(_ result: Result<HTTPResponse, TransportError>, id: UUID) throws(MealieFailure) -> MealieRecipe {
        let read = { (response: HTTPResponse) in
            MealieAnswer.wholeRecipe(response, id: id, request: "the update of recipe \(id.lowercased)", missingIsNil: false)
        }
        if case .success(let response) = result, case .success(let recipe?) = read(response) { return recipe }
        throw failure(result, read, recipeScoped: true)
    }

    func organizers(_ kind: OrganizerKind) async throws(MealieFailure) -> [MealieOrganizer] {
        let result = await send(server.organizers(kind))
        let read = { (response: HTTPResponse) in MealieAnswer.organizers(response, kind: kind) }
        if case .success(let response) = result, case .success(let list) = read(response) { return list }
        throw failure(result, read, recipeScoped: false)
    }

    /// Creates a tag, category or tool and returns it; nil when one with the same slug exists already (`500` for tags
    /// and categories, `400` for tools), which a new listing then finds.
    func createOrganizer(_ kind: OrganizerKind, name: String) async throws(MealieFailure) -> MealieOrganizer? {
        let result = await send(server.createOrganizer(kind, name: name))
        if case .success(let response) = result {
            if case .success(let made) = MealieAnswer.createdOrganizer(response, kind: kind) { return made }
            if [400, 500].contains(response.status) { return nil }
        }
        throw failure(result, { MealieAnswer.createdOrganizer($0, kind: kind) }, recipeScoped: false)
    }

    func send(_ request: HTTPRequest) async -> Result<HTTPResponse, TransportError> {
        do { return .success(try await client.send(request)) } catch { return .failure(error) }
    }

    func failure<T>(_ result: Result<HTTPResponse, TransportError>, _ read: (HTTPResponse) -> Result<T, MealieAnswerError>,
                    recipeScoped: Bool) -> MealieFailure {
        let problem: MealieAnswerError? = if case .success(let response) = result, case .failure(let error) = read(response) { error } else { nil }
        return MealieFailure.of(result, unexpected: problem, recipeScoped: recipeScoped, now: now(), token: token)
    }

    static func failure(of next: RecipeCreation.Next) -> MealieFailure {
        switch next {
        case .retry(let reason, let after): .retry(reason: reason, after: after)
        case .refused(let message): .refused(message: message)
        case .badCredentials(let message): .badCredentials(message: message)
        case .cancelled: .cancelled
        case .readBack(let status): .retry(reason: "the import answered HTTP \(status) and was not read back", after: nil)
        case .created: .retry(reason: "created", after: nil)
        }
    }
}
