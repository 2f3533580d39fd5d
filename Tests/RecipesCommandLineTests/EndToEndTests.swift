import Foundation
import Locking
import RecipesTestSupport
import Testing
@testable import RecipeStore
import RecipesCommandLine

@Suite("The built recipes binary, driven as a user would")
struct EndToEndTests {
    @Test("a scripted session prints exactly the expected output and exits 0")
    func scriptedSession() throws {
        let dir = TemporaryDirectory()
        let script = """
            # a comment, then a blank line

            new Tomato soup
            yield 1 "4 servings"
            ingredient add 1 2 tomatoes
            step add 1 'Chop, then simmer.'
            list
            new Bread
            quit
            new never reached
            """
        let result = try runRecipes(["edit", "--home", dir.homePath], input: script)
        #expect(result.stderr == "")
        #expect(result.status == 0)
        #expect(result.stdout == """
            created 1
            ID  STATE    REV  TITLE
            1   pending  4    Tomato soup
            created 2

            """)
    }

    @Test("scripted mode keeps going after a failure and exits 1; --bail stops at the first")
    func failuresAndBail() throws {
        let dir = TemporaryDirectory()
        let script = "new A\nshow 9\nnew B\n"
        let result = try runRecipes(["--home", dir.homePath, "edit"], input: script)
        #expect(result.status == 1)
        #expect(result.stdout == "created 1\ncreated 2\n")
        #expect(result.stderr == "error: line 2: no recipe with id 9; `list` shows the ids\n")
        let bailed = try runRecipes(["edit", "--bail", "--home", dir.homePath], input: script)
        #expect(bailed.status == 1)
        #expect(bailed.stdout == "created 3\n")
    }

    @Test("status --json has exactly the contract's keys, section 6's serverVersion and conflicts among them")
    func statusJSONKeys() throws {
        let dir = TemporaryDirectory()
        _ = try runRecipes(["edit", "--home", dir.homePath], input: "new Soup\n")
        let result = try runRecipes(["status", "--json", "--home", dir.homePath])
        #expect(result.status == 0)
        let array = try #require(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        try #require(array.count == 1)
        #expect(Set(array[0].keys) == [
            "id", "uuid", "title", "state", "revision", "syncedRevision", "attempts", "nextAttemptAt", "lastError",
            "blocked", "image", "remoteImage", "serverVersion", "conflicts",
        ])
        #expect(array[0]["state"] as? String == "pending")
        #expect(array[0]["serverVersion"] is NSNull)
        #expect((array[0]["conflicts"] as? [Any])?.isEmpty == true)
        #expect(array[0]["nextAttemptAt"] is NSNull)
        let list = try runRecipes(["list", "--json", "--home", dir.homePath])
        #expect(list.stdout.hasPrefix("[{\"id\":1,"))
        let show = try runRecipes(["show", "1", "--json", "--home", dir.homePath])
        #expect(show.stdout.contains("\"title\":\"Soup\""))
    }

    @Test("RECIPES_HOME is honoured and --home overrides it")
    func homeResolution() throws {
        let dir = TemporaryDirectory()
        let other = dir.url.appendingPathComponent("other").path
        _ = try runRecipes(["edit"], input: "new In env home\n", environment: ["RECIPES_HOME": dir.homePath])
        let viaEnv = try runRecipes(["list"], environment: ["RECIPES_HOME": dir.homePath])
        #expect(viaEnv.stdout.contains("In env home"))
        let viaOption = try runRecipes(["list", "--home", other], environment: ["RECIPES_HOME": dir.homePath])
        #expect(!viaOption.stdout.contains("In env home"))
        // --home also works before the subcommand name, down to nested subcommands.
        let before = try runRecipes(["--home", dir.homePath, "status"])
        #expect(before.stdout.contains("In env home"))
        #expect(try runRecipes(["--home", other, "config", "set", "sync.jobs", "7"]).status == 0)
        #expect(try runRecipes(["config", "get", "sync.jobs", "--home", other]).stdout == "7\n")
        #expect(FileManager.default.fileExists(atPath: other + "/config.toml"))
    }

    @Test("cron's `sync --background` (read without ArgumentParser) exits, prints and refuses like the same sync read by it")
    func backgroundSyncFastPathMatchesParser() throws {
        let dir = TemporaryDirectory()
        // `--max-wait 30` is the default: the same sync, but the argument list goes through ArgumentParser.
        let viaParser = ["--max-wait", "30"]
        let fresh = dir.url.appendingPathComponent("fresh").path
        for extra in [[], viaParser, []] {  // creates the store; then nothing to do, through either path
            let run = try runRecipes(["--home", fresh, "sync", "--background"] + extra)
            #expect(run.status == 0 && run.stdout.isEmpty && run.stderr.isEmpty, "\(extra): \(run)")
        }
        #expect(FileManager.default.fileExists(atPath: fresh + "/recipes.sqlite3"))

        // A foreign file where the database goes, in a bare folder and in one with the home's folders (where the
        // idle check reads it before any store is opened): refused alike, a bad server.url reported only after.
        for folders in [[], ["media", "outbox"]] {
            let notes = dir.url.appendingPathComponent("notes-\(folders.count)")
            for name in [""] + folders {
                try FileManager.default.createDirectory(at: notes.appendingPathComponent(name), withIntermediateDirectories: true)
            }
            let db = notes.appendingPathComponent("recipes.sqlite3")
            try Data("my shopping list".utf8).write(to: db)
            let environment = ["RECIPES_HOME": notes.path, "RECIPES_SERVER_URL": "ftp://wrong"]
            let fast = try runRecipes(["sync", "--background"], environment: environment)
            let parsed = try runRecipes(["sync", "--background"] + viaParser, environment: environment)
            #expect(fast.status == 1 && fast.stdout.isEmpty, "\(folders)")
            #expect(fast.stderr.contains("is not a SQLite database") && fast.stderr.split(separator: "\n").count == 1, "\(fast)")
            #expect((fast.status, fast.stdout, fast.stderr) == (parsed.status, parsed.stdout, parsed.stderr))
            #expect(try Data(contentsOf: db) == Data("my shopping list".utf8))
            #expect(try FileManager.default.contentsOfDirectory(atPath: notes.path).sorted() == (folders + ["recipes.sqlite3"]).sorted())
        }
    }

    @Test("usage errors exit 64; unknown ids exit 1 with one line; a foreign file is refused untouched")
    func badInvocations() throws {
        let dir = TemporaryDirectory()
        #expect(try runRecipes(["frobnicate", "--home", dir.homePath]).status == 64)
        #expect(try runRecipes(["show", "--home", dir.homePath]).status == 64)
        #expect(try runRecipes(["show", "012", "--home", dir.homePath]).status == 64)
        let untitled = try runRecipes(["show", "abc", "--home", dir.homePath])
        #expect(untitled.status == 1 && untitled.stderr.hasPrefix("recipes: no recipe here is titled \"abc\""), "\(untitled)")
        let missing = try runRecipes(["show", "5", "--home", dir.homePath])
        #expect(missing.status == 1)
        #expect(missing.stderr == "recipes: no recipe with id 5; `list` shows the ids\n")
        let notes = dir.url.appendingPathComponent("notes")
        try FileManager.default.createDirectory(at: notes, withIntermediateDirectories: true)
        let db = notes.appendingPathComponent("recipes.sqlite3")
        try Data("my shopping list".utf8).write(to: db)
        let refused = try runRecipes(["list", "--home", notes.path])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("is not a SQLite database"))
        #expect(refused.stderr.split(separator: "\n").count == 1)
        #expect(try Data(contentsOf: db) == Data("my shopping list".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: notes.path) == ["recipes.sqlite3"])
    }

    @Test("--version prints the version; recipes and every subcommand answer --help with exit 0")
    func versionAndHelp() throws {
        let version = try runRecipes(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout == RecipesCommand.version + "\n")
        for command in [[], ["edit"], ["list"], ["show"], ["search"], ["import"], ["export"], ["status"], ["sync"], ["cancel"], ["cron"], ["cron", "install"],
                        ["cron", "uninstall"], ["cron", "show"], ["config"], ["config", "show"], ["config", "get"],
                        ["config", "set"], ["config", "unset"]] {
            let help = try runRecipes(command + ["--help"])
            #expect(help.status == 0, "\(command) --help")
            #expect(help.stdout.contains("USAGE: recipes"), "\(command) --help")
        }
    }

    @Test("config show never prints the token; set and get round-trip; bad keys and a token under 16 characters exit 1")
    func configCommands() throws {
        let dir = TemporaryDirectory()
        let home = ["--home", dir.homePath]
        #expect(try runRecipes(["config", "set", "server.url", "http://127.0.0.1:8080"] + home).status == 0)
        #expect(try runRecipes(["config", "set", "server.token", "-"] + home, input: "tok-12345-kitchen-2026\n").status == 0)
        #expect(try runRecipes(["config", "get", "server.url"] + home).stdout == "http://127.0.0.1:8080\n")
        let shown = try runRecipes(["config", "show"] + home)
        #expect(shown.status == 0)
        #expect(!shown.stdout.contains("tok-12345"))
        let short = try runRecipes(["config", "set", "server.token", "-"] + home, input: "tok-12345\n")
        #expect(short.status == 1, "\(short)")
        #expect(short.stderr == "recipes: server.token must have at least 16 characters (this one has 9); make a longer "
            + "one (e.g. `openssl rand -hex 16`), give the server the same, and set it again\n", "\(short)")
        #expect(!short.stderr.contains("tok-12345-"), "the token set before is kept, and never printed")
        #expect(shown.stdout.contains("server.token = (set, hidden)"))
        let token = try runRecipes(["config", "get", "server.token"] + home)
        #expect(!token.stdout.contains("tok-12345"))
        let envShown = try runRecipes(["config", "show"] + home, environment: ["RECIPES_TOKEN": "env-secret"])
        #expect(!envShown.stdout.contains("env-secret"))
        let bad = try runRecipes(["config", "set", "server.colour", "red"] + home)
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("unknown setting \"server.colour\""))
        let badValue = try runRecipes(["config", "set", "sync.jobs", "0"] + home)
        #expect(badValue.status == 1)
        #expect(try runRecipes(["config", "get", "sync.jobs"] + home).stdout == "4\n")
        #expect(try runRecipes(["config", "get", "server.ca_bundle"] + home).status == 1)
    }

    @Test("config set, show and unset sync.max_connections; a bad value is one line, exit 1, and nothing changed")
    func maxConnectionsSetting() throws {
        let dir = TemporaryDirectory()
        let home = ["--home", dir.homePath]
        #expect(try runRecipes(["config", "show"] + home).stdout.contains("sync.max_connections = 16  # default\n"))
        #expect(try runRecipes(["config", "set", "sync.max_connections", "6"] + home).status == 0)
        #expect(try runRecipes(["config", "get", "sync.max_connections"] + home).stdout == "6\n")
        #expect(try runRecipes(["config", "show"] + home).stdout.contains("sync.max_connections = 6\n"))
        for value in ["0", "65", "x", "1.5"] {
            let bad = try runRecipes(["config", "set", "sync.max_connections", value] + home)
            #expect(bad.status == 1, "\(value)")
            #expect(bad.stderr == "recipes: sync.max_connections must be a whole number from 1 to 64\n", "\(value)")
            #expect(try runRecipes(["config", "get", "sync.max_connections"] + home).stdout == "6\n", "\(value)")
        }
        #expect(try runRecipes(["config", "unset", "sync.max_connections"] + home).status == 0)
        #expect(try runRecipes(["config", "get", "sync.max_connections"] + home).stdout == "16\n")
        let help = try runRecipes(["sync", "--help"])
        #expect(help.stdout.contains("sync.max_connections, 16"))
    }

    @Test("two processes editing one recipe at once lose no edit")
    func concurrentWriters() throws {
        let dir = TemporaryDirectory()
        _ = try runRecipes(["edit", "--home", dir.homePath], input: "new Shared\n")
        let perProcess = 150
        let results = Locked<[ProcessResult]>([])
        let homePath = dir.homePath
        let threads = (0..<2).map { worker in
            Thread {
                let script = (0..<perProcess).map { "ingredient add 1 item \(worker)-\($0)" }.joined(separator: "\n")
                let result: ProcessResult
                do {
                    result = try runRecipes(["edit", "--home", homePath], input: script)
                } catch {  // a failure the loop below reports, not a crash of the test process
                    result = ProcessResult(status: -1, stdout: "", stderr: "recipes edit did not run: \(error)")
                }
                results.withLock { $0.append(result) }
            }
        }
        threads.forEach { $0.start() }
        while results.withLock({ $0.count }) < 2 { usleep(10_000) }
        for result in results.withLock({ $0 }) {
            #expect(result.status == 0, "\(result.stderr)")
        }
        let store = try RecipeStore(home: dir.home)
        let recipe = try store.recipe(id: 1)
        #expect(recipe.ingredients.count == 2 * perProcess)
        #expect(recipe.sync.revision == Int64(1 + 2 * perProcess))
    }
}

@Suite("recipes edit on a terminal")
struct TerminalTests {
    @Test("on a terminal: a prompt, tab completion of command names, Ctrl-C drops the line, history is saved")
    func interactiveSession() throws {
        let dir = TemporaryDirectory()
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/pty_session.py").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, builtProduct("recipes").path, dir.homePath]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(output.contains("recipes> "))
        #expect(output.contains("created 1"))
        #expect(output.hasSuffix("EXIT 0\n"), "Ctrl-C did not end the REPL; Ctrl-D did, with status 0")
        let store = try RecipeStore(home: dir.home)
        let recipe = try store.recipe(id: 1)
        // `ingr<TAB> add 1 water` only adds an ingredient if the tab completed the command name.
        #expect(recipe.ingredients.map(\.text) == ["water"])
        #expect(recipe.title == "Soup", "the line cancelled with Ctrl-C was not run")
        let history = try String(contentsOf: dir.home.historyURL, encoding: .utf8)
        #expect(history.contains("new\\040Soup") || history.contains("new Soup"))
        #expect(!history.contains("half"), "the cancelled line is not in the history")
    }
}

@Suite("delete and undo in recipes edit on a terminal")
struct TerminalUndoTests {
    @Test("on a terminal the REPL's delete says what it did and how to undo it; undo says the recipe is back; history completes titles")
    func deleteAndUndoOnATerminal() throws {
        let dir = TemporaryDirectory()
        #expect(try runRecipes(["new", "Lasagne", "al", "forno", "--home", dir.homePath]).status == 0)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/pty_repl_undo.py").path
        let run = try runRecipes([script, builtProduct("recipes").path, dir.homePath],
                                 environment: ["TERM": "xterm"], executable: URL(fileURLWithPath: "/usr/bin/python3"))
        #expect(run.stdout.contains("deleted 1 \"Lasagne al forno\" (`undo 1` brings it back)"), "\(run.stdout)")
        #expect(run.stdout.contains("undo: recipe 1 \"Lasagne al forno\" is back (revision 3); `sync` sends it"), "\(run.stdout)")
        #expect(run.stdout.contains("brought back") && run.stdout.contains("deleted here"), "history lists both: \(run.stdout)")
        #expect(run.stdout.hasSuffix("EXIT 0\n"), "\(run.stdout)")
        let recipe = try RecipeStore(home: dir.home, access: .readOnly).recipe(id: 1)
        #expect(recipe.title == "Lasagne al forno" && !recipe.sync.deleted && recipe.sync.revision == 3)
    }
}
