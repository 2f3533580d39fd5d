import Foundation
import RecipesTestSupport
import Testing

@Suite("scaling is bounded: a factor beyond 0.001 to 1000 times is one message, never a crash")
struct ScalingBoundsTests {
    /// A home with recipe 1, "Soup": yield "4 servings", ingredient "200 g flour".
    static func soup() throws -> TemporaryDirectory {
        let dir = TemporaryDirectory()
        let made = try runRecipes(["edit", "--home", dir.homePath], input: "new Soup\nyield 1 4 servings\ningredient add 1 200 g flour\n")
        #expect(made.status == 0, "\(made)")
        return dir
    }

    @Test("recipes show: --scale 1e20 is a usage error, --servings 1e308 fails with what to ask for; 1000 times works")
    func commandLine() throws {
        let dir = try Self.soup()
        let scale = try runRecipes(["show", "1", "--scale", "1e20", "--home", dir.homePath])
        #expect(scale.status == 64, "\(scale)")
        #expect(scale.stderr.contains("--scale: a scale of 1e+20 is too large; scale by 0.001 to 1000, e.g. 1.5 or 0.5"), "\(scale)")
        let servings = try runRecipes(["show", "1", "--servings", "1e308", "--home", dir.homePath])
        #expect(servings.status == 1, "\(servings)")
        #expect(servings.stderr == "recipes: recipe 1: 1e+308 servings from the yield \"4 servings\" is too large a scale; "
            + "ask for 0.004 to 4000 servings\n", "\(servings)")
        let json = try runRecipes(["show", "1", "--servings", "1e308", "--json", "--home", dir.homePath])
        #expect(json.status == 1 && json.stdout.isEmpty, "\(json)")
        let most = try runRecipes(["show", "1", "--scale", "1000", "--home", dir.homePath])
        #expect(most.status == 0 && most.stdout.contains("200000 g flour"), "\(most)")
    }

    @Test("in the REPL, out-of-bounds scales are failed lines: the session and its background sync go on")
    func replSurvives() throws {
        let dir = try Self.soup()
        // Nothing listens on port 9: the background job ends offline, which the end of input waits for.
        let result = try runRecipes(
            ["edit", "--home", dir.homePath],
            input: "sync &\nshow 1 --scale 1e20\nshow 1 --servings 1e308\nshow 1 --scale 0.00001\nshow 1 --servings 8\njobs\n",
            environment: ["RECIPES_SERVER_URL": "http://127.0.0.1:9"])
        #expect(result.status == 1, "three lines failed: \(result)")
        #expect(result.stderr.contains("error: line 2: recipe 1: a scale of 1e+20 is too large"), "\(result.stderr)")
        #expect(result.stderr.contains("error: line 3: recipe 1: 1e+308 servings from the yield \"4 servings\" is too large a scale"))
        #expect(result.stderr.contains("error: line 4: recipe 1: a scale of 1e-05 is too small"), "\(result.stderr)")
        #expect(result.stdout.contains("400 g flour") && result.stdout.contains("8 servings"), "line 5 ran: \(result.stdout)")
        #expect(result.stdout.contains("[1] finished: sync: 1 waiting"), "the background sync ran to its end: \(result.stdout)")
    }
}
