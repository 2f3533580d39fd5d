import Foundation
import RecipesCommandLine
import SystemFiles

/// The `recipes` executable: all of its behaviour lives in RecipesCommandLine.
@main
struct RecipesEntry {
    static func main() async {
        let arguments = ProcessArguments.current()
        // Cron's `sync --background` skips ArgumentParser (most of an idle run's cost); everything else goes to it.
        if let background = BackgroundSyncArguments(arguments.dropFirst()) {
            exit(await background.run())
        }
        await RecipesCommand.main(arguments: Array(arguments.dropFirst()))
    }
}
