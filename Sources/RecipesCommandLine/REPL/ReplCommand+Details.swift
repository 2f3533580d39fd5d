import Foundation
import RecipeModels
import RecipeStore

extension ReplCommandSpec {
    /// `preptime`, `cooktime`, `totaltime`, `category`, `cuisine`, `author`, `url`, `tools`, `diets` and
    /// `nutrition`: each checks its value here, so that a bad one is refused with what a good one looks like.
    func parseDetail(_ arguments: [String]) throws(CommandLineError) -> ReplCommand {
        guard arguments.count >= 2 else { throw usageError() }
        let id = try Self.recipeID(arguments[0])
        let text = arguments.dropFirst().joined(separator: " ")
        switch name {
        case "preptime", "cooktime", "totaltime":
            let detail: DetailText = name == "preptime" ? .prepTime : name == "cooktime" ? .cookTime : .totalTime
            do {
                return .edit(id: id, .detail(detail, try RecipeDuration.stored(text)))
            } catch {
                throw CommandLineError(error.message)
            }
        case "author":
            return .edit(id: id, .detail(.author, text.trimmingCharacters(in: .whitespaces)))
        case "url":
            let address = text.trimmingCharacters(in: .whitespaces)
            guard address.isEmpty || Self.isWebAddress(address) else {
                throw CommandLineError("\"\(address)\" is not a web address; give the page's http:// or https:// address")
            }
            return .edit(id: id, .detail(.url, address))
        case "nutrition":
            guard arguments.count >= 3 else { throw usageError("give the nutrition property, then its text") }
            guard let property = NutritionName.property(arguments[1]) else {
                throw CommandLineError(
                    "\"\(arguments[1])\" is not a nutrition property; name one of "
                        + NutritionName.properties.joined(separator: ", ") + " (fat, protein, carbs, … for short)")
            }
            return .edit(id: id, .nutrition(key: property, value: arguments.dropFirst(2).joined(separator: " ")
                .trimmingCharacters(in: .whitespaces)))
        default:
            let list: DetailList = switch name {
            case "category": .recipeCategory
            case "cuisine": .recipeCuisine
            case "tools": .tool
            default: .suitableForDiet
            }
            var entries = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            if list == .suitableForDiet { entries = entries.map(DietName.stored) }
            return .edit(id: id, .detailList(list, entries))
        }
    }

    /// Whether `text` is an `http://` or `https://` address with a host.
    static func isWebAddress(_ text: String) -> Bool {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else { return false }
        return (scheme == "http" || scheme == "https") && components.host?.isEmpty == false
    }
}
