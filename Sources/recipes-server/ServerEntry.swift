import ReferenceServer
import SystemFiles

/// The `recipes-server` executable: all of its logic lives in `RecipesServerCommand`.
@main
struct ServerEntry {
    /// Runs the command with the process arguments.
    static func main() async {
        await RecipesServerCommand.main(Array(ProcessArguments.current().dropFirst()))
    }
}
