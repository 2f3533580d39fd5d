import Foundation
import RecipesTestSupport
import Testing
@testable import RecipeStore
@testable import RecipesCommandLine

@Suite("A config.toml that holds a token and others may read gets a warning, once per command, as ssh gives")
struct ConfigFilePermissionTests {
    /// A home whose config file holds a token, with the file's permissions set to `mode`.
    func homeWithToken(_ dir: TemporaryDirectory, mode: Int, token: Bool = true) throws -> String {
        try ClientConfiguration.write(.syncJobs, value: "2", home: dir.home, environment: [:])
        if token { try ClientConfiguration.write(.serverToken, value: "tok-perm-4242", home: dir.home, environment: [:]) }
        let path = ClientConfiguration.fileURL(home: dir.home, environment: [:]).path
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        return path
    }

    func warning(_ path: String, _ mode: String) -> String {
        "recipes: warning: permissions \(mode) for \(path) are too open for a file that holds server.token; run `chmod 600 \(path)`\n"
    }

    @Test("the warning is due when the group or others have any access to a file holding a token, and only then",
          arguments: [(0o600, false), (0o400, false), (0o700, false), (0o644, true), (0o640, true), (0o604, true), (0o620, true)])
    func warningRule(mode: Int, warns: Bool) throws {
        let dir = TemporaryDirectory()
        let path = try homeWithToken(dir, mode: mode)
        let configuration = try ClientConfiguration.load(home: dir.home, environment: [:])
        #expect((configuration.exposedTokenWarning != nil) == warns, "mode \(String(mode, radix: 8))")
        if warns {
            let octal = "0" + String(mode, radix: 8)
            #expect(configuration.exposedTokenWarning.map { "recipes: \($0)\n" } == warning(path, octal))
        }
        let noToken = TemporaryDirectory()
        _ = try homeWithToken(noToken, mode: mode, token: false)
        #expect(try ClientConfiguration.load(home: noToken.home, environment: [:]).exposedTokenWarning == nil)
    }

    @Test("config show, a REPL session and cron's idle sync --background each warn once on stderr; 0600 silences it")
    func warnsOncePerCommand() throws {
        let dir = TemporaryDirectory()
        let path = try homeWithToken(dir, mode: 0o644)
        let home = ["--home", dir.homePath]
        let show = try runRecipes(["config", "show"] + home)
        #expect(show.status == 0)
        #expect(show.stderr == warning(path, "0644"))
        #expect(!show.stdout.contains("tok-perm-4242") && !show.stderr.contains("tok-perm-4242"))
        let session = try runRecipes(["edit"] + home, input: "list\nstatus\nlist\n")
        #expect(session.status == 0)
        #expect(session.stderr == warning(path, "0644"))
        // The store exists and nothing is due: the idle run that does not open it.
        let background = try runRecipes(["sync", "--background"] + home)
        #expect(background.status == 0)
        #expect(background.stderr == warning(path, "0644"), "\(background)")
        #expect(background.stdout.isEmpty)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        #expect(try runRecipes(["config", "show"] + home).stderr.isEmpty)
        #expect(try runRecipes(["sync", "--background"] + home).stderr.isEmpty)
    }

    @Test("config set rewrites a too-open file with mode 0600 and says nothing about it")
    func setRepairsPermissions() throws {
        let dir = TemporaryDirectory()
        let path = try homeWithToken(dir, mode: 0o644)
        let set = try runRecipes(["config", "set", "sync.jobs", "3", "--home", dir.homePath])
        #expect(set.status == 0 && set.stderr.isEmpty, "\(set)")
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }
}
