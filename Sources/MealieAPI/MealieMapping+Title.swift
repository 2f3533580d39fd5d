import Foundation
import RecipeModels

/// A recipe's title and the name Mealie keeps for it. Mealie's slug is `slugify(name)` and unique in a group, so two
/// recipes titled "Pancakes" (or "Collide", "collide!" and "Cöllide", which slugify alike) cannot both be named so:
/// Mealie's import names the second "Pancakes (1)", and a write that sets its name back is refused (`400 Recipe
/// already exists`, nothing changed). Such a recipe keeps the name Mealie gave it, or that the write found free, and
/// the cook's title travels beside it in `extras`: `recipes.title` (the title) and `recipes.title.name` (the name it
/// stands for). Every device syncing with that Mealie reads the cook's title; a rename in Mealie's web app (another
/// name) is read as that name, the title stored beside it then no longer standing for it.
extension MealieMapping {
    /// The `extras` key of the cook's title when Mealie's name is another.
    static let titleKey = extrasPrefix + "title"
    /// The `extras` key of the name of Mealie's that the kept title stands for.
    static let titleNameKey = extrasPrefix + "title.name"
    /// How many names a write tries after the title (`Title (1)` … `Title (10)`), as Mealie's own creation does.
    public static let alternativeNames = 10

    /// The title of Mealie's `recipe`: the one kept in `extras` while Mealie's name is still the one it stands for,
    /// else the name.
    public static func title(of recipe: [String: MealieJSON]) -> String {
        titleAlias(in: recipe)?.title ?? recipe["name"]?.text ?? ""
    }

    /// The title kept beside Mealie's name, and that name, while the name is still the one it stands for.
    static func titleAlias(in recipe: [String: MealieJSON]) -> TitleAlias? {
        let extras = recipe["extras"]?.members ?? [:]
        guard let title = extras[titleKey]?.string, let name = extras[titleNameKey]?.string,
              name == recipe["name"]?.text else { return nil }
        return TitleAlias(title: title, name: name)
    }

    /// The `k`-th name a write tries for `title` when Mealie has a recipe whose name slugifies like it: `Title (k)`,
    /// the form Mealie's own creation gives.
    public static func alternativeName(_ title: String, _ k: Int) -> String { "\(title) (\(k))" }

    /// The name to write for `title` over Mealie's `current` copy, and the title to keep beside it: nil when Mealie's
    /// name (and the title kept beside it) already give `title`. `nameInMealie` is a name chosen for this recipe
    /// because `title` is taken (Mealie's at creation, or a write's alternative); without one, the name is the title.
    static func naming(_ title: String, over current: [String: MealieJSON], nameInMealie: String?) -> (name: String, alias: TitleAlias?) {
        let name = current["name"]?.text ?? ""
        if title == self.title(of: current), nameInMealie == nil || nameInMealie == name {
            return (name, titleAlias(in: current))
        }
        guard let chosen = nameInMealie, chosen != title else { return (title, nil) }
        return (chosen, TitleAlias(title: title, name: chosen))
    }
}

/// A title kept beside the name Mealie has for a recipe (`MealieMapping.title(of:)`).
struct TitleAlias: Sendable, Equatable {
    let title: String
    let name: String
}
