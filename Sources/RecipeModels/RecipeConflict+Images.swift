extension RecipeConflict {
    /// The SHA-256s of the images the conflict offers on either side (and its base): a home keeps them in `images/`
    /// until the conflict is resolved, so that either choice can be shown and taken.
    public var imageSHA256s: Set<String> {
        guard case .fields(let conflicts) = self else { return [] }
        var shas: Set<String> = []
        for conflict in conflicts {
            for value in [conflict.base, conflict.mine, conflict.theirs] {
                if case .image(let image) = value { shas.insert(image.sha256) }
            }
        }
        return shas
    }
}
