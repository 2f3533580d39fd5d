import Foundation
import RecipeModels
import Transport

/// A whole Mealie recipe as read (`GET /api/recipes/{id}`, or the answer of a `PATCH`): its stamp, and every key as
/// Mealie sent it, which the mapping reads (`fields`) and the next write is computed against.
public struct MealieRecipe: Sendable, Equatable {
    /// Its id, slug, name, `updatedAt` (the version a write is conditional on) and image key.
    public var stamp: RecipeStamp
    /// Every top-level key of the recipe as Mealie sent it.
    public var document: [String: MealieJSON]

    /// Creates a recipe from its parts.
    public init(stamp: RecipeStamp, document: [String: MealieJSON]) {
        self.stamp = stamp
        self.document = document
    }

    /// The recipe's fields as `recipes` holds them (without the image: see `MealieMapping.fields(of:)`).
    public var fields: RecipeFields { MealieMapping.fields(of: document) }
}

extension MealieAnswer {
    /// `GET /api/recipes/{id}` (`status` 200) or the `PATCH` of it: the whole recipe, which must be recipe `id`; nil
    /// when Mealie has no recipe `id` (`404` "No Entry Found", only when `missingIsNil`).
    public static func wholeRecipe(_ response: HTTPResponse, id: UUID, request: String,
                                   missingIsNil: Bool = true) -> Result<MealieRecipe?, MealieAnswerError> {
        if missingIsNil, response.status == 404, isNoEntryFound(response) { return .success(nil) }
        let fail = { (problem: MealieAnswerError.Problem) in
            Result<MealieRecipe?, MealieAnswerError>.failure(MealieAnswerError(status: response.status, request: request, problem: problem))
        }
        guard response.status == 200 else {
            return fail(.unexpectedStatus(expected: "200", mealieSays: MealieErrorBody.message(in: response.body)))
        }
        let stamp: RecipeStamp
        switch AnswerDecoding.decode(RecipeStampJSON.self, from: response, request: request) {
        case .failure(let error): return .failure(error)
        case .success(let json):
            switch json.stamp(path: "") {
            case .failure(let problem): return fail(problem)
            case .success(let read): stamp = read
            }
        }
        guard stamp.id == id else { return fail(.inconsistent("it names recipe \(stamp.id.lowercased)")) }
        switch AnswerDecoding.decode(MealieJSON.self, from: response, request: request) {
        case .failure(let error): return .failure(error)
        case .success(let document):
            guard let members = document.members else { return fail(.wrongType(path: "the answer", expected: "an object")) }
            return .success(MealieRecipe(stamp: stamp, document: members))
        }
    }
}
