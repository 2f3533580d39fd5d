import Foundation
import Transport

/// What Mealie's answers say, read into small typed values; every answer is checked (its status, its shape, every
/// field used) and anything else is a `MealieAnswerError`, never a crash.
public enum MealieAnswer {
    /// `GET /api/app/about`: the version a Mealie reports (`"develop"` for a build from source). An answer without
    /// `version` and `production` is not a Mealie's.
    public static func about(_ response: HTTPResponse) -> Result<String, MealieAnswerError> {
        struct About: Decodable { let production: Bool; let version: String }
        return expect(200, response, "the request for its version").flatMap {
            AnswerDecoding.decode(About.self, from: response, request: "the request for its version").map(\.version)
        }
    }

    /// `GET /api/groups/self`: the group whose recipes the token reaches (its id names the collection a cursor
    /// belongs to).
    public static func group(_ response: HTTPResponse) -> Result<MealieGroup, MealieAnswerError> {
        struct Group: Decodable { let id: String; let name: String?; let slug: String? }
        let request = "the request for the token's group"
        return expect(200, response, request).flatMap {
            AnswerDecoding.decode(Group.self, from: response, request: request)
        }.flatMap { group in
            guard let id = UUID(uuidString: group.id) else {
                return .failure(MealieAnswerError(status: response.status, request: request, problem: .badValue(path: "id", value: group.id)))
            }
            return .success(MealieGroup(id: id, name: group.name ?? group.slug ?? ""))
        }
    }

    /// `GET /api/recipes/{id}`: the recipe's stamp (`200`, and it must be recipe `id`), or nil when Mealie has no
    /// recipe `id` (`404` with Mealie's "No Entry Found"; a `404` of another shape is no recipe answer at all).
    public static func recipe(_ response: HTTPResponse, id: UUID) -> Result<RecipeStamp?, MealieAnswerError> {
        let request = "the request for recipe \(id.lowercased)"
        if response.status == 404, isNoEntryFound(response) { return .success(nil) }
        return stampOfRecipe(response, id: id, status: 200, request: request).map { $0 }
    }

    /// `PUT /api/recipes/{id}`: the recipe as Mealie stored it (`200`, recipe `id`), its new `updatedAt` the base of
    /// the next write.
    public static func update(_ response: HTTPResponse, id: UUID) -> Result<RecipeStamp, MealieAnswerError> {
        stampOfRecipe(response, id: id, status: 200, request: "the update of recipe \(id.lowercased)")
    }

    /// `DELETE /api/recipes/{id}`: true when Mealie deleted it now (`200` with recipe `id`), false when it was already
    /// gone (`404` with Mealie's "No Entry Found").
    public static func deletion(_ response: HTTPResponse, id: UUID) -> Result<Bool, MealieAnswerError> {
        if response.status == 404, isNoEntryFound(response) { return .success(false) }
        return stampOfRecipe(response, id: id, status: 200, request: "the deletion of recipe \(id.lowercased)").map { _ in true }
    }

    /// Whether Mealie refused a write because another recipe of the group has its slug (a rename to a name that
    /// slugifies like another recipe's): `400 {"detail":{"message":"Recipe already exists"}}`, nothing written.
    public static func isNameTaken(_ response: HTTPResponse) -> Bool {
        response.status == 400 && MealieErrorBody.message(in: response.body)?.hasPrefix("Recipe already exists") == true
    }

    /// `POST /api/recipes/create/zip` answered `201`: the slug of the recipe that request created, a bare JSON string.
    /// Not proof that the archive sent was the one imported (`RecipeCreation` reads the recipe back by id).
    public static func createdSlug(_ response: HTTPResponse) -> Result<String, MealieAnswerError> {
        let request = "the creation of a recipe"
        return expect(201, response, request).flatMap {
            AnswerDecoding.decode(String.self, from: response, request: request)
        }.flatMap { slug in
            RecipeStampJSON.isSlug(slug) ? .success(slug)
                : .failure(MealieAnswerError(status: response.status, request: request, problem: .badValue(path: "the slug", value: slug)))
        }
    }

    /// `PUT /api/recipes/{slug}/image` answered `200 {"image":"<key>"}`: the new cache key.
    public static func imageKey(_ response: HTTPResponse) -> Result<String, MealieAnswerError> {
        struct Answer: Decodable { let image: ScalarText }
        let request = "the image upload"
        return expect(200, response, request).flatMap {
            AnswerDecoding.decode(Answer.self, from: response, request: request)
        }.flatMap { answer in
            answer.image.text.isEmpty
                ? .failure(MealieAnswerError(status: response.status, request: request, problem: .badValue(path: "image", value: "")))
                : .success(answer.image.text)
        }
    }

    /// The `ETag` of an image answer (`imageProbe`'s `206`, or a whole `200`): Starlette's `"<md5 of mtime and size>"`,
    /// nil when Mealie has no image there (`404`). Another status, or an answer without an `ETag`, is an error.
    public static func imageETag(_ response: HTTPResponse) -> Result<String?, MealieAnswerError> {
        let request = "the request for an image"
        if response.status == 404 { return .success(nil) }
        guard response.status == 206 || response.status == 200 else {
            return .failure(MealieAnswerError(status: response.status, request: request,
                                              problem: .unexpectedStatus(expected: "206", mealieSays: MealieErrorBody.message(in: response.body))))
        }
        guard let etag = response.header("etag")?.trimmingCharacters(in: .whitespaces), !etag.isEmpty, etag.count <= 200 else {
            return .failure(MealieAnswerError(status: response.status, request: request, problem: .missingField(path: "the ETag header")))
        }
        return .success(etag)
    }

    /// A page of `GET /api/recipes` asked for with `perPage=pageSize`: its counts and stamps, checked against each
    /// other (at most `pageSize` items, no more than `total`, a `total` from 0 to a billion). The other counts
    /// (`page`, `per_page`, `total_pages`) are not read: the sync asks for page 1 after a cursor, and `next` is a
    /// path without `/api` in this version, never followed.
    public static func recipePage(_ response: HTTPResponse, pageSize: Int) -> Result<RecipePage, MealieAnswerError> {
        struct Page: Decodable {
            let total: JSONCount
            let items: [RecipeStampJSON]
        }
        let request = "the recipe list"
        let fail = { (problem: MealieAnswerError.Problem) in
            Result<RecipePage, MealieAnswerError>.failure(MealieAnswerError(status: response.status, request: request, problem: problem))
        }
        let decoded: Page
        switch expect(200, response, request).flatMap({ AnswerDecoding.decode(Page.self, from: response, request: request) }) {
        case .success(let page): decoded = page
        case .failure(let error): return .failure(error)
        }
        guard decoded.items.count <= max(pageSize, 0) else {
            return fail(.inconsistent("\(decoded.items.count) recipes on a page of at most \(pageSize)"))
        }
        guard decoded.items.count <= decoded.total.value else {
            return fail(.inconsistent("\(decoded.items.count) recipes on a page of a list of \(decoded.total.value)"))
        }
        var stamps: [RecipeStamp] = []
        stamps.reserveCapacity(decoded.items.count)
        for (index, item) in decoded.items.enumerated() {
            switch item.stamp(path: "items[\(index)].") {
            case .success(let stamp): stamps.append(stamp)
            case .failure(let problem): return fail(problem)
            }
        }
        return .success(RecipePage(total: decoded.total.value, items: stamps))
    }

    /// `GET /api/organizers/{kind}?perPage=-1`: every tag, category or tool, checked (ids, non-empty names and slugs).
    public static func organizers(_ response: HTTPResponse, kind: OrganizerKind) -> Result<[MealieOrganizer], MealieAnswerError> {
        struct Page: Decodable { let items: [OrganizerJSON] }
        let request = "the list of \(kind.rawValue)"
        return expect(200, response, request).flatMap {
            AnswerDecoding.decode(Page.self, from: response, request: request)
        }.flatMap { page in
            var organizers: [MealieOrganizer] = []
            for (index, item) in page.items.enumerated() {
                switch item.organizer(path: "items[\(index)].") {
                case .success(let organizer): organizers.append(organizer)
                case .failure(let problem): return .failure(MealieAnswerError(status: response.status, request: request, problem: problem))
                }
            }
            return .success(organizers)
        }
    }

    /// `POST /api/organizers/{kind}` answered `201`: the tag, category or tool Mealie made.
    public static func createdOrganizer(_ response: HTTPResponse, kind: OrganizerKind) -> Result<MealieOrganizer, MealieAnswerError> {
        let request = "the creation of one of its \(kind.rawValue)"
        return expect(201, response, request).flatMap {
            AnswerDecoding.decode(OrganizerJSON.self, from: response, request: request)
        }.flatMap { item in
            item.organizer(path: "").mapError { MealieAnswerError(status: response.status, request: request, problem: $0) }
        }
    }

    // MARK: Parts

    /// Whether a `404` is Mealie's "this recipe does not exist" (`{"detail":{"message":"No Entry Found",…}}`), not a
    /// route that does not exist (`{"detail":"Not Found"}`: `server.url` is not a Mealie's base URL).
    static func isNoEntryFound(_ response: HTTPResponse) -> Bool {
        struct Body: Decodable { struct Detail: Decodable { let message: String }; let detail: Detail }
        guard let body = try? JSONDecoder().decode(Body.self, from: response.body) else { return false }
        return body.detail.message == "No Entry Found"
    }

    private static func stampOfRecipe(_ response: HTTPResponse, id: UUID, status: Int, request: String) -> Result<RecipeStamp, MealieAnswerError> {
        expect(status, response, request).flatMap {
            AnswerDecoding.decode(RecipeStampJSON.self, from: response, request: request)
        }.flatMap { json in
            json.stamp(path: "").mapError { MealieAnswerError(status: response.status, request: request, problem: $0) }
        }.flatMap { stamp in
            stamp.id == id ? .success(stamp)
                : .failure(MealieAnswerError(status: response.status, request: request,
                                             problem: .inconsistent("it names recipe \(stamp.id.lowercased)")))
        }
    }

    private static func expect(_ status: Int, _ response: HTTPResponse, _ request: String) -> Result<Void, MealieAnswerError> {
        guard response.status != status else { return .success(()) }
        return .failure(MealieAnswerError(
            status: response.status, request: request,
            problem: .unexpectedStatus(expected: String(status), mealieSays: MealieErrorBody.message(in: response.body))))
    }
}

/// The Mealie group a token belongs to: every household's recipes in it are the sync's collection.
public struct MealieGroup: Sendable, Equatable {
    /// The group's id, made when the Mealie's database was: another id means another or a reset Mealie.
    public var id: UUID
    /// Its name (`Home` by default).
    public var name: String

    /// Creates a group.
    public init(id: UUID, name: String) {
        self.id = id
        self.name = name
    }
}

/// A page of the recipe list: how many recipes the query matches in all, and this page's stamps in order.
public struct RecipePage: Sendable, Equatable {
    /// The number of recipes the query matches, this page and the following ones together.
    public var total: Int
    /// The page's recipes, in the order asked for.
    public var items: [RecipeStamp]

    /// Creates a page.
    public init(total: Int, items: [RecipeStamp]) {
        self.total = total
        self.items = items
    }
}

/// A tag, category or tool as Mealie has it. A recipe must send it back exactly so: a `PUT` whose tag carries a
/// known `id` with another `name` or `slug` renames that tag for every recipe (docs/mealie.md).
public struct MealieOrganizer: Sendable, Equatable, Hashable {
    /// Its id.
    public var id: UUID
    /// Its name as Mealie shows it.
    public var name: String
    /// Its slug, unique in the group.
    public var slug: String
    /// A tool's "on hand" flag (nil for tags and categories), to send back as listed.
    public var onHand: Bool?

    /// Creates an organizer.
    public init(id: UUID, name: String, slug: String, onHand: Bool? = nil) {
        self.id = id
        self.name = name
        self.slug = slug
        self.onHand = onHand
    }
}

/// The fields of an organizer in Mealie's JSON.
struct OrganizerJSON: Decodable {
    let id: String
    let name: String
    let slug: String
    let onHand: Bool?

    func organizer(path: String) -> Result<MealieOrganizer, MealieAnswerError.Problem> {
        guard let uuid = UUID(uuidString: id) else { return .failure(.badValue(path: path + "id", value: id)) }
        guard !name.isEmpty else { return .failure(.badValue(path: path + "name", value: name)) }
        guard RecipeStampJSON.isSlug(slug) else { return .failure(.badValue(path: path + "slug", value: slug)) }
        return .success(MealieOrganizer(id: uuid, name: name, slug: slug, onHand: onHand))
    }
}
