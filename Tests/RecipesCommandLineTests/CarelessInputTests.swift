import Foundation
import GRDB
import RecipesTestSupport
import Testing
@testable import RecipeStore
@testable import RecipesCommandLine

/// Whether `text` holds a control character (C0 other than the line feed, DEL or C1) that would reach a terminal.
func holdsControlCharacters(_ text: String) -> Bool {
    text.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value) }
}

@Suite("The built recipes binary given careless input: pipes, NUL bytes, escape sequences, an empty --home")
struct CarelessInputTests {
    @Test("`image set` on a named pipe returns at once with the refusal and changes nothing")
    func imageSetOnNamedPipe() throws {
        let dir = TemporaryDirectory()
        let fifo = dir.url.appendingPathComponent("photo.jpg").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let home = dir.homePath
        let (inTime, result) = runBounded(seconds: 20, release: { releaseReader(ofPipe: fifo) }) {
            try? runRecipes(["edit", "--home", home], input: "new Soup\nimage set 1 \(fifo)\nlist\n")
        }
        #expect(inTime, "image set waited in open() for a writer to the pipe")
        let run = try #require(result)
        #expect(run.status == 1)
        #expect(run.stderr == "error: line 2: \(fifo) is a named pipe (FIFO), not an image file; save the image to a file and give its path\n")
        #expect(run.stdout == "created 1\nID  STATE    REV  TITLE\n1   pending  1    Soup\n")
        let media = try FileManager.default.contentsOfDirectory(atPath: dir.home.mediaURL.path).filter { $0 != ".lock" }
        #expect(media.isEmpty)
    }

    @Test("`new abc<NUL>def` and a title of NULs are refused in words, never SQLite's; nothing is created")
    func nulBytesRefused() throws {
        let dir = TemporaryDirectory()
        let run = try runRecipes(["edit", "--home", dir.homePath], input: "new abc\0def\nnew \0\0\0\nlist\n")
        #expect(run.status == 1)
        let refusal = "the title contains a NUL byte (\\0), which recipes cannot store; remove it and try again"
        #expect(run.stderr == "error: line 1: \(refusal)\nerror: line 2: \(refusal)\n")
        #expect(run.stdout == "no recipes yet; create one with `new <title>`\n")
    }

    @Test("an empty home's list and status advise the shell's command in a shell, the REPL's in the REPL")
    func emptyHomeAdviceInTheRightWords() throws {
        let dir = TemporaryDirectory()
        for command in ["list", "status"] {
            let shell = try runRecipes([command, "--home", dir.homePath])
            #expect(shell.stdout.hasPrefix("no recipes yet; create one with `recipes new <title>`\n"), "\(shell)")
            let repl = try runRecipes(["edit", "--home", dir.homePath], input: command + "\n")
            #expect(repl.stdout.hasPrefix("no recipes yet; create one with `new <title>`\n"), "\(repl)")
        }
    }

    @Test("a running watcher whose server was unset is told to send SIGHUP once one is set, not to start the watcher")
    func watcherReloadAdvice() throws {
        let dir = TemporaryDirectory()
        let context = CommandContext(homeOption: dir.homePath, environment: ["HOME": dir.homePath], console: CapturingConsole())
        let invocation = WatchInvocation(mode: .plain)
        #expect { try invocation.configuration(context) } throws: { error in
            (error as? CommandLineError)?.message.hasSuffix("then start the watcher") == true
        }
        #expect { try invocation.configuration(context, reloading: true) } throws: { error in
            let message = (error as? CommandLineError)?.message ?? ""
            return message.hasSuffix("then send SIGHUP (`kill -HUP \(getpid())`) to have it read again")
                && !message.contains("start the watcher")
        }
    }

    @Test("titles and texts with escape sequences are shown cleaned by list, show and status; the JSON is exact")
    func escapeSequencesCleaned() throws {
        let dir = TemporaryDirectory()
        let title = "Soup\u{1B}[2J\u{1B}]0;owned\u{07}\u{9B}31m"
        do {
            // Written past the edit layer's checks, as an older version or a damaged copy could have stored it.
            let store = try RecipeStore(home: dir.home)
            let id = try store.create(title: "placeholder").id
            try store.apply(.description("Warm.\nFilling."), to: id)
            try store.apply(.addIngredient("salt"), to: id)
            try store.pool.write { db in
                try db.execute(sql: "UPDATE recipes SET title = ? WHERE id = ?", arguments: [title, id])
                try db.execute(sql: "UPDATE ingredients SET text = ? WHERE recipe_id = ?", arguments: ["s\u{1B}[5malt", id])
            }
        }
        let home = ["--home", dir.homePath]
        let cleaned = "Soup [2J ]0;owned  31m"
        let list = try runRecipes(["list"] + home)
        #expect(list.stdout == "ID  STATE    REV  TITLE\n1   pending  3    \(cleaned)\n")
        #expect(!holdsControlCharacters(try runRecipes(["show", "1"] + home).stdout), "the cook's view is cleaned too")
        let show = try runRecipes(["show", "1", "--details"] + home)
        #expect(!holdsControlCharacters(show.stdout))
        #expect(show.stdout.contains("title:        \(cleaned)\n"))
        #expect(show.stdout.contains("description:  Warm.\n              Filling.\n"))
        #expect(show.stdout.contains("  1. s [5malt\n"))
        let status = try runRecipes(["status"] + home)
        #expect(status.stdout.contains(cleaned) && !holdsControlCharacters(status.stdout))
        let repl = try runRecipes(["edit"] + home, input: "list\nshow 1\nstatus\n")
        #expect(repl.stdout.contains(cleaned) && !holdsControlCharacters(repl.stdout))
        for command in [["list", "--json"], ["show", "1", "--json"], ["status", "--json"]] {
            let json = try runRecipes(command + home)
            #expect(!holdsControlCharacters(json.stdout), "\(command): JSON escapes them")
            let parsed = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8))
            let object = (parsed as? [[String: Any]])?.first ?? (parsed as? [String: Any])
            #expect(object?["title"] as? String == title, "\(command): the JSON keeps the exact title")
        }
    }

    @Test("an error line never carries a control character from a path the user typed")
    func errorLinesCleaned() throws {
        let dir = TemporaryDirectory()
        let path = dir.url.appendingPathComponent("no\u{1B}]0;owned\u{07}.png").path
        let run = try runRecipes(["edit", "--home", dir.homePath], input: "new Soup\nimage set 1 '\(path)'\n")
        #expect(run.status == 1)
        #expect(run.stderr == "error: line 2: \(TerminalText.clean(path)): no such file; check the path\n")
        let notAHome = dir.file("home\u{1B}[2J", [])
        let refused = try runRecipes(["list", "--home", notAHome])
        #expect(refused.status == 1)
        #expect(refused.stderr.hasPrefix("recipes: \(TerminalText.clean(notAHome)) "))
        #expect(!holdsControlCharacters(refused.stderr))
    }

    @Test("an empty --home is a usage error (exit 64), also on cron's fast path; no default home is created",
          arguments: [
              ["list", "--home", ""], ["--home", "", "list"], ["--home=", "status"], ["edit", "--home", ""],
              ["config", "show", "--home", ""], ["sync", "--background", "--home", ""], ["--home=", "sync", "--background"],
              ["--home", "", "sync", "--background"], ["sync", "--background", "--home="], ["list", "--home="],
          ])
    func emptyHomeRefused(arguments: [String]) throws {
        let dir = TemporaryDirectory()
        let user = dir.url.appendingPathComponent("user").path
        let run = try runRecipes(arguments, input: "new Soup\n", environment: ["HOME": user])
        #expect(run.status == 64, "\(arguments): \(run)")
        #expect(run.stderr.contains("--home needs a folder, not an empty string; give a path, or leave --home out to use the default home"))
        #expect(run.stdout.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: user + "/.local/share/recipes"))
    }

    @Test("`--home=` is read as an empty --home, never as a --home whose value is the next argument")
    func attachedEmptyHome() {
        #expect(RecipesCommand.emptyHomeSpelledOut(["--home=", "list"]) == ["--home", "", "list"])
        #expect(RecipesCommand.emptyHomeSpelledOut(["sync", "--home=", "3", "--", "--home="])
            == ["sync", "--home", "", "3", "--", "--home="])
        #expect(RecipesCommand.emptyHomeSpelledOut(["--home=/h", "list"]) == ["--home=/h", "list"])
    }

    @Test("config set refuses a server.url with a port out of range (99999, 0) and leaves the file as it was")
    func serverURLPortRefused() throws {
        let dir = TemporaryDirectory()
        let home = ["--home", dir.homePath]
        #expect(try runRecipes(["config", "set", "server.url", "http://127.0.0.1:8080"] + home).status == 0)
        for url in ["http://127.0.0.1:99999", "http://127.0.0.1:0", "https://recipes.example.org:65536"] {
            let run = try runRecipes(["config", "set", "server.url", url] + home)
            #expect(run.status == 1, "\(url)")
            #expect(run.stderr.hasPrefix("recipes: server.url \"\(url)\" cannot be used: its port"), "\(url): \(run.stderr)")
            #expect(try runRecipes(["config", "get", "server.url"] + home).stdout == "http://127.0.0.1:8080\n")
        }
    }
}
