import Foundation
import RecipeModels

/// What writing a recipe's fields over Mealie's current copy takes.
public enum MealieWrite: Sendable, Equatable {
    /// These tags, categories or tools (names per kind) are neither the recipe's nor in `catalog`: list the group's
    /// (when not listed yet), create those it lacks, and plan the write anew.
    case createOrganizers([OrganizerKind: [String]])
    /// The `PATCH` body: only the top-level keys whose value changes, each list whole with every element whole.
    /// Empty: Mealie has the fields already, nothing to write.
    case patch([String: MealieJSON])
}

extension MealieMapping {
    /// The write that gives Mealie's `current` copy (a whole recipe as read just before) the fields `fields`: a key
    /// is in it only when its value differs from `current`'s, so whatever Mealie holds that `recipes` does not model
    /// is never changed, and a write that changes nothing is no request. `catalog` is the group's organizers
    /// (`GET /api/organizers/{kind}`); `newID` makes the ids of new ingredients and steps (fresh v4 UUIDs).
    /// `nameInMealie` is the name to give the recipe when its title is taken in Mealie (`MealieMapping+Title`): the
    /// title then goes beside it in `extras`. Times go in the form Mealie writes them (`MealieDuration`).
    ///
    /// The traps of Mealie 2.0 (docs/mealie.md) are avoided here: `name` always goes with `slug`; every ingredient
    /// carries its `referenceId`, every step its `id`, `summary` and `ingredientReferences`; an ingredient or step
    /// whose text is unchanged is sent back as Mealie gave it; tags, categories and tools are sent exactly as Mealie
    /// lists them.
    public static func write(_ fields: RecipeFields, over current: [String: MealieJSON],
                             catalog: [OrganizerKind: [MealieOrganizer]], newID: () -> UUID,
                             nameInMealie: String? = nil) -> MealieWrite {
        var patch: [String: MealieJSON] = [:]
        let naming = naming(fields.title, over: current, nameInMealie: nameInMealie)
        if naming.name != current["name"]?.text ?? "" {
            patch["name"] = .string(naming.name)
            patch["slug"] = current["slug"] ?? .string("") // any value: Mealie recomputes it from the name
        }
        let details = fields.details
        let texts: [(String, String)] = [
            ("description", fields.description), ("recipeYield", fields.recipeYield),
            ("prepTime", MealieDuration.written(details.prepTime)), ("performTime", MealieDuration.written(details.cookTime)),
            ("totalTime", MealieDuration.written(details.totalTime)), ("orgURL", details.url),
        ]
        for (key, value) in texts where value != current[key]?.text ?? "" { patch[key] = .string(value) }

        let wanted: [(OrganizerKind, [String])] = [
            (.tags, fields.keywords.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }),
            (.categories, fields.details.recipeCategory), (.tools, fields.details.tool),
        ]
        var missing: [OrganizerKind: [String]] = [:]
        var orders: [(String, [String])] = []
        for (kind, names) in wanted {
            let listed = current[recipeKey(kind)]?.elements ?? []
            var objects: [MealieJSON] = []
            for name in names {
                if let object = organizer(named: name, in: listed, catalog: catalog[kind] ?? []) {
                    if !objects.contains(object) { objects.append(object) }
                } else if !(missing[kind] ?? []).contains(name) {
                    missing[kind, default: []].append(name)
                }
            }
            // The order as Mealie names them ("soup" typed, Mealie's "Soup" found), and the list only when it is another.
            orders.append((orderKey(kind), objects.map { $0["name"]?.text ?? "" }))
            let ids = { (list: [MealieJSON]) in list.map { $0["id"]?.text ?? "" }.sorted() }
            if ids(objects) != ids(listed) { patch[recipeKey(kind)] = .array(objects) }
        }
        guard missing.isEmpty else { return .createOrganizers(missing) }

        if let nutrition = nutrition(fields.details.nutrition, over: current["nutrition"]) { patch["nutrition"] = nutrition }
        if let extras = extras(fields, orders: orders, title: naming.alias, over: current["extras"]) { patch["extras"] = extras }
        let ingredients = current["recipeIngredient"]?.elements ?? []
        if ingredients.map(ingredientText) != fields.ingredients {
            patch["recipeIngredient"] = .array(self.ingredients(fields.ingredients, reusing: ingredients, newID: newID))
        }
        let instructions = current["recipeInstructions"]?.elements ?? []
        if steps(instructions) != fields.steps {
            patch["recipeInstructions"] = .array(self.instructions(fields.steps, reusing: instructions, newID: newID))
        }
        return .patch(patch)
    }

    /// The organizer named `name`: the one the recipe has already (sent back as it came: by its name, else by its name
    /// in another case or its slug), else the group's of that name, else the group's whose name differs only in case
    /// or whose slug is the name's.
    static func organizer(named name: String, in recipeList: [MealieJSON], catalog: [MealieOrganizer]) -> MealieJSON? {
        if let listed = recipeList.first(where: { $0["name"]?.text == name })
            ?? recipeList.first(where: { ($0["name"]?.text ?? "").lowercased() == name.lowercased() || $0["slug"]?.text == slug(name) }) {
            return listed
        }
        let found = catalog.first { $0.name == name }
            ?? catalog.first { $0.name.lowercased() == name.lowercased() || $0.slug == slug(name) }
        return found.map { organizer in
            var object: [String: MealieJSON] = [
                "id": .string(organizer.id.uuidString.lowercased()), "name": .string(organizer.name), "slug": .string(organizer.slug),
            ]
            if let onHand = organizer.onHand { object["onHand"] = .bool(onHand) }
            return .object(object)
        }
    }

    /// An approximation of Mealie's `slugify`: diacritics folded, lower case, every run of other characters one `-`.
    static func slug(_ name: String) -> String {
        let folded = name.folding(options: [.diacriticInsensitive, .caseInsensitive], locale: nil).lowercased()
        var slug = ""
        for scalar in folded.unicodeScalars {
            if scalar.isASCII, CharacterSet.alphanumerics.contains(scalar) {
                slug.unicodeScalars.append(scalar)
            } else if !slug.isEmpty, !slug.hasSuffix("-") {
                slug += "-"
            }
        }
        while slug.hasSuffix("-") { slug.removeLast() }
        return slug
    }

    /// Mealie's `nutrition` with `nutrition`'s values for its eleven properties, or nil when it has them already.
    static func nutrition(_ nutrition: [String: String], over current: MealieJSON?) -> MealieJSON? {
        var members = current?.members ?? [:]
        var changed = false
        for key in nutritionKeys {
            let value = nutrition[key] ?? ""
            guard value != members[key]?.text ?? "" else { continue }
            members[key] = value.isEmpty ? .null : .string(value)
            changed = true
        }
        return changed ? .object(members) : nil
    }

    /// Mealie's `extras` with the `recipes.…` keys carrying what Mealie has no field for, the order of each list of
    /// organizers (`orders`, by key) that has more than one, and the title kept beside another name (`title`), with
    /// every other key as it is; nil when it has them.
    static func extras(_ fields: RecipeFields, orders: [(String, [String])], title: TitleAlias? = nil,
                       over current: MealieJSON?) -> MealieJSON? {
        let members = current?.members ?? [:]
        var wanted = members.filter { !$0.key.hasPrefix(extrasPrefix) }
        let details = fields.details
        if !details.recipeCuisine.isEmpty { wanted[extrasPrefix + "recipeCuisine"] = .string(textListValue(details.recipeCuisine)) }
        if !details.author.isEmpty { wanted[extrasPrefix + "author"] = .string(details.author) }
        if !details.suitableForDiet.isEmpty {
            wanted[extrasPrefix + "suitableForDiet"] = .string(textListValue(details.suitableForDiet))
        }
        for (key, value) in details.nutrition where !nutritionKeys.contains(key) {
            wanted[extrasPrefix + "nutrition." + key] = .string(value)
        }
        for (key, value) in fields.received.other { wanted[extrasPrefix + "other." + key] = .string(value) }
        for (key, names) in orders where names.count > 1 { wanted[extrasPrefix + key] = .string(textListValue(names)) }
        if let title {
            wanted[titleKey] = .string(title.title)
            wanted[titleNameKey] = .string(title.name)
        }
        return wanted.mapValues(\.text) == members.mapValues(\.text) ? nil : .object(wanted)
    }

    /// The ingredient list for `texts`: an element of Mealie's with the same text is sent back whole (its parsed
    /// amount, section title and `referenceId` kept), each used once and in order; a new text is a new element
    /// with a fresh `referenceId` (Mealie commits an ingredient without one and can never read the recipe again).
    static func ingredients(_ texts: [String], reusing current: [MealieJSON], newID: () -> UUID) -> [MealieJSON] {
        var unused = Array(current.indices)
        var sources: [Int?] = []
        var written = texts.map { text -> MealieJSON in
            if let position = unused.firstIndex(where: { ingredientText(current[$0]) == text }) {
                let source = unused.remove(at: position)
                sources.append(source)
                var members = current[source].members ?? [:]
                if members["referenceId"]?.string?.isEmpty ?? true { members["referenceId"] = .string(newID().uuidString.lowercased()) }
                return .object(members)
            }
            sources.append(nil)
            return .object([
                "quantity": .number(1), "unit": .null, "food": .null, "note": .string(text), "isFood": .bool(false),
                "disableAmount": .bool(true), "display": .string(text), "title": .null, "originalText": .null,
                "referenceId": .string(newID().uuidString.lowercased()),
            ])
        }
        moveHeadings(of: unused, in: current, to: &written, sources: sources)
        return written
    }

    /// Mealie keeps a section's heading (`title`) on the ingredient that starts the section. When that ingredient is
    /// removed (or its text edited: another ingredient), its heading goes to the one that now stands in its place: the
    /// ingredient written right after those kept from before it, when that one is new or came later in the same
    /// section (before the next heading). With no such ingredient the section is empty, and its heading goes with it.
    /// `sources[i]`: the index in `current` of `written[i]`, nil for a new one; `removed`: the indices not written.
    static func moveHeadings(
        of removed: [Int], in current: [MealieJSON], to written: inout [MealieJSON], sources: [Int?]
    ) {
        let heading = { (element: MealieJSON) -> String? in
            guard let title = element["title"]?.text, !title.isEmpty else { return nil }
            return title
        }
        for index in removed.sorted() {
            guard let title = heading(current[index]) else { continue }
            let keptBefore = sources.lastIndex { $0.map { $0 < index } ?? false }
            let place = keptBefore.map { $0 + 1 } ?? 0
            guard place < written.count, heading(written[place]) == nil else { continue }
            if let source = sources[place] {
                guard source > index, !current[(index + 1)...source].contains(where: { heading($0) != nil }) else { continue }
            }
            var members = written[place].members ?? [:]
            members["title"] = .string(title)
            written[place] = .object(members)
        }
    }

    /// The instructions for `steps`: a step starts a section (its `title`) where its section's name differs from the
    /// step before's; a step of Mealie's with the same text is sent back whole (its `id`, `summary` and ingredient
    /// references kept), a new one gets a fresh `id` and no references. A step outside any section after one inside
    /// a section cannot be told apart in Mealie, which has no end of a section: it reads back in that section.
    static func instructions(_ steps: [Step], reusing current: [MealieJSON], newID: () -> UUID) -> [MealieJSON] {
        var unused = Array(current.indices)
        var previous: String?
        return steps.map { step in
            let title = step.section == previous ? "" : step.section
            previous = step.section
            var members: [String: MealieJSON]
            if let position = unused.firstIndex(where: { current[$0]["text"]?.text == step.text }) {
                members = current[unused.remove(at: position)].members ?? [:]
            } else {
                members = ["text": .string(step.text)]
            }
            if members["id"]?.string?.isEmpty ?? true { members["id"] = .string(newID().uuidString.lowercased()) }
            if members["summary"] == nil { members["summary"] = .string("") }
            if members["ingredientReferences"] == nil { members["ingredientReferences"] = .array([]) }
            members["title"] = .string(title)
            return .object(members)
        }
    }
}
