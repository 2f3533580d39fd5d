import RecipesCommandLine

/// The `recipes` executable: all of its behaviour lives in RecipesCommandLine.
@main
struct RecipesEntry {
    static func main() async {
        await RecipesCommand.main()
    }
}
