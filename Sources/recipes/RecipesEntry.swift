import Foundation
import RecipesCommandLine

/// The `recipes` executable: all of its behaviour lives in RecipesCommandLine.
@main
struct RecipesEntry {
    static func main() async {
        // Cron's `sync --background` skips ArgumentParser (most of an idle run's cost); everything else goes to it.
        if let background = BackgroundSyncArguments(CommandLine.arguments.dropFirst()) {
            exit(await background.run())
        }
        await RecipesCommand.main(arguments: Array(CommandLine.arguments.dropFirst()))
    }
}
