import Foundation
import Locking
import RecipesTestSupport
import Testing
@testable import RecipeStore
@testable import RecipesCommandLine

@Suite("recipes cron: the crontab line and the edits of a crontab's text")
struct CrontabEntryTests {
    /// An entry of `home` run by `/opt/recipes/bin/recipes` every 5 minutes with `RECIPES_HOME`.
    func entry(home: String, executable: String = "/opt/recipes/bin/recipes", every: Int = 5) throws -> CrontabEntry {
        CrontabEntry(
            schedule: try CronSchedule(everyMinutes: every), executable: executable, home: home,
            assignments: [.init(name: "RECIPES_HOME", value: home)])
    }

    @Test("--every renders 1–59 as */N minutes and whole hours that divide a day as 0 */H (1440 as 0 0)", arguments: [
        (1, "*/1 * * * *"), (5, "*/5 * * * *"), (59, "*/59 * * * *"), (60, "0 */1 * * *"), (120, "0 */2 * * *"),
        (180, "0 */3 * * *"), (240, "0 */4 * * *"), (360, "0 */6 * * *"), (480, "0 */8 * * *"), (720, "0 */12 * * *"),
        (1440, "0 0 * * *"),
    ])
    func schedules(minutes: Int, fields: String) throws {
        #expect(try CronSchedule(everyMinutes: minutes).fields == fields)
    }

    @Test("--every refuses what cron cannot keep, naming the values that work",
          arguments: [0, -5, 61, 90, 100, 300, 600, 1000, 1439, 1500, 2880])
    func invalidSchedules(minutes: Int) {
        let error = #expect(throws: CommandLineError.self) { try CronSchedule(everyMinutes: minutes) }
        let message = error?.message ?? ""
        #expect(message.contains("--every \(minutes)") && message.contains("1 to 59") && message.contains("1440"))
    }

    @Test("the line is schedule, RECIPES_HOME, the executable, sync --background and the home's tag")
    func renderedLine() throws {
        #expect(try entry(home: "/srv/recipes").line() == """
            */5 * * * * RECIPES_HOME='/srv/recipes' '/opt/recipes/bin/recipes' sync --background \
            # recipes-sync home=/srv/recipes
            """)
        #expect(try entry(home: "/srv/recipes", every: 120).line().hasPrefix("0 */2 * * * RECIPES_HOME="))
    }

    @Test("paths with spaces and single quotes are single-quoted with '\\'' in the values and in the tag")
    func quotingSpacesAndQuotes() throws {
        let line = try entry(home: "/tmp/my recipes/it's", executable: "/opt/my apps/bob's/recipes").line()
        #expect(line == """
            */5 * * * * RECIPES_HOME='/tmp/my recipes/it'\\''s' '/opt/my apps/bob'\\''s/recipes' sync --background \
            # recipes-sync home='/tmp/my recipes/it'\\''s'
            """)
    }

    @Test("every % is written \\% outside the quotes, so that cron does not cut the line there")
    func percentEscaped() throws {
        #expect(CrontabEntry.quoted("/srv/100%/home") == #"'/srv/100'\%'/home'"#)
        #expect(CrontabEntry.quoted(#"/a\%b"#) == #"'/a\'\%'b'"#)
        #expect(CrontabEntry.quoted("%") == #"''\%''"#)
        let line = try entry(home: "/srv/100%").line()
        #expect(line.contains(#"RECIPES_HOME='/srv/100'\%''"#))
        #expect(line.hasSuffix(#"# recipes-sync home='/srv/100'\%''"#))
        #expect(!line.replacing(#"\%"#, with: "").contains("%"), "no bare % is left")
    }

    @Test("a path with a line break is refused with a message, since no crontab line can hold it")
    func lineBreakRefused() throws {
        #expect(throws: CommandLineError.self) { try entry(home: "/tmp/two\nlines").line() }
        #expect(throws: CommandLineError.self) { try entry(home: "/h", executable: "/bin/re\rcipes").line() }
    }

    @Test("environment: an explicit home passes only RECIPES_HOME; else XDG_* when set, and HOME when not the account's")
    func environmentRules() {
        let everything = ["HOME": "/home/u", "XDG_DATA_HOME": "/d", "XDG_CONFIG_HOME": "/c", "RECIPES_TOKEN": "t"]
        let explicit = RecipesHome.resolve(option: "/explicit", environment: everything)
        #expect(CrontabEntry.assignments(for: explicit, environment: everything, accountHome: "/home/u")
            == [.init(name: "RECIPES_HOME", value: "/explicit")])
        let fromVariable = RecipesHome.resolve(option: nil, environment: ["RECIPES_HOME": "~/r", "HOME": "/home/u"])
        #expect(CrontabEntry.assignments(for: fromVariable, environment: [:], accountHome: "/home/u")
            == [.init(name: "RECIPES_HOME", value: "/home/u/r")])
        let implicit = RecipesHome.resolve(option: nil, environment: everything)
        #expect(CrontabEntry.assignments(for: implicit, environment: everything, accountHome: "/home/u")
            == [.init(name: "XDG_DATA_HOME", value: "/d"), .init(name: "XDG_CONFIG_HOME", value: "/c")])
        #expect(CrontabEntry.assignments(for: implicit, environment: ["HOME": "/home/u", "XDG_DATA_HOME": ""],
                                         accountHome: "/home/u").isEmpty)
        #expect(CrontabEntry.assignments(for: implicit, environment: ["HOME": "/elsewhere"], accountHome: "/home/u")
            == [.init(name: "HOME", value: "/elsewhere")])
    }

    @Test("install appends the line with its newline, adding the newline a crontab without one lacks")
    func installAppends() throws {
        let line = try entry(home: "/h").line()
        #expect(CrontabEntry.installing(line, home: "/h", in: []) == Array((line + "\n").utf8))
        #expect(CrontabEntry.installing(line, home: "/h", in: Array("A\n".utf8)) == Array("A\n\(line)\n".utf8))
        #expect(CrontabEntry.installing(line, home: "/h", in: Array("A".utf8)) == Array("A\n\(line)\n".utf8))
    }

    @Test("installing twice leaves one line; a new --every replaces the line where it stands")
    func installIsIdempotent() throws {
        let original = Array("# mine\n* * * * * /bin/true\n".utf8)
        let five = try entry(home: "/h").line()
        let once = CrontabEntry.installing(five, home: "/h", in: original)
        #expect(CrontabEntry.installing(five, home: "/h", in: once) == once)
        let withTail = once + Array("0 1 * * * /bin/date\n".utf8)
        let ten = try entry(home: "/h", every: 10).line()
        #expect(CrontabEntry.installing(ten, home: "/h", in: withTail)
            == Array("# mine\n* * * * * /bin/true\n\(ten)\n0 1 * * * /bin/date\n".utf8))
        let doubled = Array("\(five)\nX=1\n\(five)\n".utf8)
        #expect(CrontabEntry.installing(ten, home: "/h", in: doubled) == Array("\(ten)\nX=1\n".utf8))
    }

    @Test("uninstall removes only this home's line and keeps every other line and comment byte for byte")
    func uninstallKeepsEverythingElse() throws {
        let ours = try entry(home: "/h").line()
        let otherHome = try entry(home: "/h2").line()
        let commentedOut = "#" + ours
        let lookalike = "* * * * * echo '# recipes-sync home=/h'"
        var before: [UInt8] = Array("# my crontab\nMAILTO=\"\"\n\n".utf8) + [0x23, 0x20, 0x63, 0x61, 0x66, 0xE9, 0x0A]  // "# café" in Latin-1
        before += Array("\(otherHome)\n\(ours)   \n\(commentedOut)\n\t\(lookalike)\n*/3 * * * * /bin/true  # job\n".utf8)
        let (after, removed) = CrontabEntry.removing(home: "/h", from: before)
        #expect(removed == [ours + "   "])
        var expected: [UInt8] = Array("# my crontab\nMAILTO=\"\"\n\n".utf8) + [0x23, 0x20, 0x63, 0x61, 0x66, 0xE9, 0x0A]
        expected += Array("\(otherHome)\n\(commentedOut)\n\t\(lookalike)\n*/3 * * * * /bin/true  # job\n".utf8)
        #expect(after == expected)
        #expect(CrontabEntry.removing(home: "/h", from: after) == (after, []))
        #expect(CrontabEntry.removing(home: "/h", from: Array("\(ours)\n".utf8)) == ([], [ours]))
        #expect(CrontabEntry.removing(home: "/h", from: Array("\(ours)\nA\n\(ours)\n".utf8)) == (Array("A\n".utf8), [ours, ours]))
    }

    @Test("a line is found by its home's tag only: not another home's, a prefix's, a quoted look-alike or a comment")
    func findsOnlyItsHome() throws {
        let quoted = try entry(home: "/tmp/my recipes/it's").line()
        let tricky = try entry(home: "/x # recipes-sync home=/h").line()
        let text = Array("\(quoted)\n\(tricky)\n# recipes-sync home=/h\n".utf8)
        #expect(CrontabEntry.lines(ofHome: "/tmp/my recipes/it's", in: text) == [quoted])
        #expect(CrontabEntry.lines(ofHome: "/x # recipes-sync home=/h", in: text) == [tricky])
        #expect(CrontabEntry.lines(ofHome: "/h", in: text).isEmpty)
        #expect(CrontabEntry.lines(ofHome: "/tmp/my recipes", in: text).isEmpty)
    }

    @Test("/bin/sh, started as cron starts it, gets exactly the home and executable for paths with blanks, quotes, $, \\ and %")
    func shellSeesExactValues() throws {
        let dir = TemporaryDirectory()
        let awkward = dir.url.appendingPathComponent(#"a b'c%d\%e"f$g"#)
        try FileManager.default.createDirectory(at: awkward, withIntermediateDirectories: true)
        let script = awkward.appendingPathComponent("recipes")
        try Data("#!/bin/sh\nprintf '%s\\n' \"$RECIPES_HOME\" \"$@\" > \"$(dirname \"$0\")/out\"\n".utf8).write(to: script)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        let home = awkward.appendingPathComponent("home 100%").path
        let line = try entry(home: home, executable: script.path).line()
        let result = try runProgram("/usr/bin/env", ["-i", "/bin/sh", "-c", cronCommand(line)])
        #expect(result.status == 0, "\(result.stderr)")
        let out = try String(contentsOf: awkward.appendingPathComponent("out"), encoding: .utf8)
        #expect(out == "\(home)\nsync\n--background\n")
        #expect(CrontabEntry.lines(ofHome: home, in: Array("\(line)\n".utf8)) == [line])
    }
}

@Suite("recipes cron against the real crontab (saved before each test, restored exactly after)", .serialized)
struct CronEndToEndTests {
    @Test("install twice leaves one line, show prints it, uninstall removes only it: the rest stays byte for byte")
    func installShowUninstall() throws {
        try withSavedCrontab {
            var fixture = Array("# my jobs\nMAILTO=\"\"\n\n*/10 * * * * /usr/bin/true # keep me\n".utf8)
            fixture += [0x23, 0x20, 0x63, 0x61, 0x66, 0xE9, 0x0A]  // "# café" in Latin-1
            fixture += Array("0 3 * * * RECIPES_HOME='/elsewhere' /usr/bin/recipes sync --background # recipes-sync home=/elsewhere\n".utf8)
            try setCrontab(fixture)
            let dir = TemporaryDirectory()
            let home = dir.homePath

            let first = try runInstalled(["cron", "install", "--home", home])
            #expect(first.status == 0, "\(first.stderr)")
            #expect(first.stderr == daemonWarning)
            let line = "*/5 * * * * RECIPES_HOME='\(home)' '\(recipesExecutable())' sync --background # recipes-sync home=\(home)"
            #expect(first.stdout == "installed: \(line)\n")
            #expect(try crontabText() == fixture + Array("\(line)\n".utf8))

            let second = try runInstalled(["--home", home, "cron", "install"])
            #expect(second.status == 0)
            #expect(try crontabText() == fixture + Array("\(line)\n".utf8), "installing twice leaves one line")

            let tenLine = line.replacing("*/5 ", with: "*/10 ")
            #expect(try runInstalled(["cron", "install", "--every", "10", "--home", home]).stdout == "installed: \(tenLine)\n")
            #expect(try crontabText() == fixture + Array("\(tenLine)\n".utf8), "a new --every updates the line")

            let shown = try runInstalled(["cron", "show", "--home", home])
            #expect(shown.status == 0)
            #expect(shown.stdout == tenLine + "\n")

            let removed = try runInstalled(["cron", "uninstall", "--home", home])
            #expect(removed.status == 0)
            #expect(removed.stdout == "removed: \(tenLine)\n")
            #expect(try crontabText() == fixture, "everything else is byte for byte as before")

            let none = try runInstalled(["cron", "show", "--home", home])
            #expect(none.status == 1)
            #expect(none.stdout == "")
            #expect(none.stderr == "no recipes sync line for \(home) in the crontab\n")
            let again = try runInstalled(["cron", "uninstall", "--home", home])
            #expect(again.status == 0)
            #expect(again.stdout == "no recipes sync line for \(home) in the crontab\n")
            #expect(try crontabText() == fixture)
        }
    }

    @Test("two homes have two lines; uninstalling one leaves the other; removing the last line leaves no crontab")
    func twoHomes() throws {
        try withSavedCrontab {
            try setCrontab(nil)
            let a = TemporaryDirectory(), b = TemporaryDirectory()
            #expect(try runInstalled(["cron", "install"], environment: ["RECIPES_HOME": a.homePath]).status == 0)
            #expect(try runInstalled(["cron", "install", "--home", b.homePath]).status == 0)
            #expect(try crontabText().split(separator: UInt8(ascii: "\n")).count == 2)
            #expect(try runInstalled(["cron", "uninstall"], environment: ["RECIPES_HOME": a.homePath]).status == 0)
            #expect(try runInstalled(["cron", "show"], environment: ["RECIPES_HOME": a.homePath]).status == 1)
            let other = try runInstalled(["cron", "show", "--home", b.homePath])
            #expect(other.status == 0)
            #expect(other.stdout.hasSuffix(" # recipes-sync home=\(b.homePath)\n"))
            #expect(try runInstalled(["cron", "uninstall", "--home", b.homePath]).status == 0)
            #expect(try currentCrontab() == nil, "the crontab is removed, as it was before")
        }
    }

    @Test("--every 60 and 1440 are written in hours; 90 and 0 are usage errors (64) that change nothing")
    func everyOption() throws {
        try withSavedCrontab {
            let dir = TemporaryDirectory()
            let hourly = try runInstalled(["cron", "install", "--every", "60", "--home", dir.homePath])
            #expect(hourly.stdout.hasPrefix("installed: 0 */1 * * * RECIPES_HOME="))
            let daily = try runInstalled(["cron", "install", "--every", "1440", "--home", dir.homePath])
            #expect(daily.stdout.hasPrefix("installed: 0 0 * * * RECIPES_HOME="))
            let before = try crontabText()
            for bad in ["90", "0", "five"] {
                let refused = try runInstalled(["cron", "install", "--every", bad, "--home", dir.homePath])
                #expect(refused.status == 64, "--every \(bad)")
                #expect(refused.stdout == "")
                if bad != "five" { #expect(refused.stderr.contains("use 1 to 59 minutes, or 60, 120"), "--every \(bad)") }
            }
            #expect(try crontabText() == before)
        }
    }

    @Test("server settings in the environment get a note on stderr and never reach the crontab or the output")
    func environmentSecretsStayOut() throws {
        try withSavedCrontab {
            let dir = TemporaryDirectory()
            let result = try runInstalled(["cron", "install", "--home", dir.homePath], environment: [
                "RECIPES_TOKEN": "sekrit-token", "RECIPES_SERVER_URL": "http://example.invalid:1",
                "RECIPES_CA_BUNDLE": "/etc/ssl/extra.pem",
            ])
            #expect(result.status == 0)
            let quotedHome = "'\(dir.homePath)'"
            #expect(result.stderr == daemonWarning + """
                note: $RECIPES_SERVER_URL is set in this shell but cron will not see it; store it with \
                `recipes --home \(quotedHome) config set server.url URL`
                note: $RECIPES_TOKEN is set in this shell but cron will not see it; store it with \
                `recipes --home \(quotedHome) config set server.token -` (reads it from standard input)
                note: $RECIPES_CA_BUNDLE is set in this shell but cron will not see it; store it with \
                `recipes --home \(quotedHome) config set server.ca_bundle FILE`

                """)
            let crontab = String(decoding: try crontabText(), as: UTF8.self)
            for secret in ["sekrit", "example.invalid", "extra.pem"] {
                #expect(!crontab.contains(secret))
                #expect(!result.stdout.contains(secret))
                #expect(!result.stderr.contains(secret))
            }
        }
    }

    @Test("the installed line, run under env -i, exits 0 silently and creates <home>/logs/", arguments: [true, false])
    func lineRunsUnderEmptyEnvironment(explicitHome: Bool) throws {
        try withSavedCrontab {
            let dir = TemporaryDirectory()
            let home: String
            let result: ProcessResult
            if explicitHome {
                home = dir.url.appendingPathComponent("my 'recipes' home").path
                result = try runInstalled(["cron", "install", "--home", home])
            } else {
                let data = dir.url.appendingPathComponent("data").path
                home = data + "/recipes"
                result = try runInstalled(["cron", "install"], environment: [
                    "XDG_DATA_HOME": data, "XDG_CONFIG_HOME": dir.url.appendingPathComponent("config").path,
                ])
                #expect(result.stdout.contains("XDG_DATA_HOME='\(data)'"))
                #expect(!result.stdout.contains("RECIPES_HOME"))
            }
            #expect(result.status == 0, "\(result.stderr)")
            let lines = CrontabEntry.lines(ofHome: home, in: try crontabText())
            try #require(lines.count == 1)
            let run = try runProgram("/usr/bin/env", ["-i", "/bin/sh", "-c", cronCommand(lines[0])])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout == "")
            #expect(run.stderr == "")
            var isDirectory: ObjCBool = false
            #expect(FileManager.default.fileExists(atPath: home + "/logs", isDirectory: &isDirectory) && isDirectory.boolValue)
        }
    }
}

@Suite("recipes cron with a stand-in crontab program (the real crontab is not touched)")
struct CronStandInTests {
    /// A folder holding an executable `crontab` shell script with `body`, to put first on `PATH`.
    func standIn(_ body: String) throws -> TemporaryDirectory {
        let dir = TemporaryDirectory()
        let script = dir.url.appendingPathComponent("crontab")
        try Data("#!/bin/sh\n\(body)\n".utf8).write(to: script)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        return dir
    }

    @Test("without a crontab program on PATH the command says so in one line and exits 1")
    func missingCrontab() throws {
        let empty = TemporaryDirectory()
        for command in ["install", "uninstall", "show"] {
            let result = try runInstalled(["cron", command, "--home", empty.homePath], environment: ["PATH": empty.url.path])
            #expect(result.status == 1, "\(command)")
            #expect(result.stderr == "recipes: crontab not found: install cron, e.g. `apt-get install cron`\n", "\(command)")
        }
    }

    @Test("a failing crontab's own stderr is shown on one line, with its exit status, and nothing is written")
    func crontabFailure() throws {
        let dir = try standIn("""
            [ "$1" = "-" ] && { cat > "$(dirname "$0")/written"; exit 0; }
            echo "crontab: cannot open spool" >&2; echo "  permission denied  " >&2; exit 2
            """)
        let result = try runInstalled(["cron", "install", "--home", dir.homePath], environment: ["PATH": dir.url.path + ":/usr/bin:/bin"])
        #expect(result.status == 1)
        #expect(result.stderr == "recipes: `crontab -l` failed (exit status 2): crontab: cannot open spool; permission denied\n")
        #expect(!FileManager.default.fileExists(atPath: dir.url.appendingPathComponent("written").path))
    }

    @Test("'no crontab for <user>' with exit 1 reads as empty; a crontab without final newline gets one; writing goes to crontab - on stdin")
    func readAndWriteThroughStandIn() throws {
        let dir = try standIn("""
            here="$(dirname "$0")"
            case "$1" in
            -l) if [ -f "$here/current" ]; then cat "$here/current"; else echo "no crontab for tester" >&2; exit 1; fi ;;
            -) cat > "$here/written" ;;
            *) echo "unexpected $*" >&2; exit 9 ;;
            esac
            """)
        let env = ["PATH": dir.url.path + ":/usr/bin:/bin"]  // the stand-in comes before the real crontab
        let first = try runInstalled(["cron", "install", "--home", dir.homePath], environment: env)
        #expect(first.status == 0, "\(first.stderr)")
        let line = String(first.stdout.dropFirst("installed: ".count).dropLast())
        #expect(fileBytes(dir.url.appendingPathComponent("written").path) == Data("\(line)\n".utf8))
        try Data("A\nB".utf8).write(to: dir.url.appendingPathComponent("current"))
        #expect(try runInstalled(["cron", "install", "--home", dir.homePath], environment: env).status == 0)
        #expect(fileBytes(dir.url.appendingPathComponent("written").path) == Data("A\nB\n\(line)\n".utf8))
        let failing = try standIn("echo 'crontab: errors in crontab file, can'\\''t install.' >&2; exit 1")
        let refused = try runInstalled(["cron", "show", "--home", dir.homePath], environment: ["PATH": failing.url.path])
        #expect(refused.status == 1)
        #expect(refused.stderr == "recipes: `crontab -l` failed (exit status 1): crontab: errors in crontab file, can't install.\n")
    }
}

// MARK: - Helpers

/// What cron hands to `/bin/sh -c` for a crontab line, as Debian's cron does it: the text after the five time fields,
/// cut at the first bare `%` (the rest would go to standard input), with each `\%` turned into `%`.
func cronCommand(_ line: String) -> String {
    var rest = Substring(line)
    for _ in 0..<5 {
        rest = rest.drop(while: { $0 == " " || $0 == "\t" })
        rest = rest.drop(while: { $0 != " " && $0 != "\t" })
    }
    rest = rest.drop(while: { $0 == " " || $0 == "\t" })
    var command = ""
    var escaped = false
    for character in rest {
        if escaped {
            if character == "%" { command.removeLast() }
            command.append(character)
            escaped = false
            continue
        }
        if character == "%" { break }
        if character == "\\" { escaped = true }
        command.append(character)
    }
    return command
}

/// Runs `program` with `arguments` and `input` on stdin, in this process's environment, and waits for it.
func runProgram(_ program: String, _ arguments: [String], input: Data = Data()) throws -> ProcessResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: program)
    process.arguments = arguments
    let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = stderr
    try process.run()
    let errData = Locked(Data())
    let errReader = Thread { errData.withLock { $0 = stderr.fileHandleForReading.readDataToEndOfFile() } }
    errReader.start()
    stdin.fileHandleForWriting.write(input)
    try stdin.fileHandleForWriting.close()
    let out = stdout.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    while !errReader.isFinished { usleep(1000) }
    return ProcessResult(
        status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
        stderr: String(decoding: errData.withLock { $0 }, as: UTF8.self))
}

/// The user's real crontab as `crontab -l` prints it, or nil when there is none.
func currentCrontab() throws -> [UInt8]? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/crontab")
    process.arguments = ["-l"]
    var environment = ProcessInfo.processInfo.environment
    environment["LC_ALL"] = "C"
    process.environment = environment
    let stdout = Pipe(), stderr = Pipe()
    process.standardOutput = stdout
    process.standardError = stderr
    try process.run()
    let errData = Locked(Data())
    let errReader = Thread { errData.withLock { $0 = stderr.fileHandleForReading.readDataToEndOfFile() } }
    errReader.start()
    let out = stdout.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    while !errReader.isFinished { usleep(1000) }
    if process.terminationStatus == 0 { return Array(out) }
    let message = String(decoding: errData.withLock { $0 }, as: UTF8.self)
    guard message.contains("no crontab for") else { throw CommandLineError("crontab -l failed: \(message)") }
    return nil
}

/// The real crontab's text; empty when there is none.
func crontabText() throws -> [UInt8] { try currentCrontab() ?? [] }

/// Replaces the real crontab with `text` (`crontab -`), or removes it (`crontab -r`) when `text` is nil.
func setCrontab(_ text: [UInt8]?) throws {
    if let text {
        let result = try runProgram("/usr/bin/crontab", ["-"], input: Data(text))
        guard result.status == 0 else { throw CommandLineError("crontab - failed: \(result.stderr)") }
    } else if try currentCrontab() != nil {
        let result = try runProgram("/usr/bin/crontab", ["-r"])
        guard result.status == 0 else { throw CommandLineError("crontab -r failed: \(result.stderr)") }
    }
}

/// Runs `body` and then puts the real crontab back exactly as it was (removing it if there was none), checking that
/// it is back.
func withSavedCrontab(_ body: () throws -> Void) throws {
    let saved = try currentCrontab()
    var failure: (any Error)?
    do { try body() } catch { failure = error }
    try setCrontab(saved)
    #expect(try currentCrontab() == saved, "the crontab is restored exactly")
    if let failure { throw failure }
}

/// A copy of the built `recipes` outside the build folder, as `make install` puts one (hard-linked when it can be,
/// replaced by each test run, so that runs leave one copy at most): `cron install` refuses to name a build folder's
/// binary in a crontab.
let installedRecipes: String = {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("recipes-cron-tests/bin")
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let path = folder.appendingPathComponent("recipes").path
    let built = builtProduct("recipes").path
    unlink(path)
    if link(built, path) != 0 { try? FileManager.default.copyItem(atPath: built, toPath: path) }
    return path
}()

/// Runs the installed copy of `recipes` (see `installedRecipes`) as `runRecipes` runs the built one.
func runInstalled(_ arguments: [String], environment: [String: String] = [:]) throws -> ProcessResult {
    try runRecipes(arguments, environment: environment, executable: URL(fileURLWithPath: installedRecipes))
}

/// What `cron install` says on stderr first on this machine: the warning when no cron daemon runs here.
let daemonWarning = CronDaemon.isRunning() ? "" : CronDaemon.warning + "\n"

/// The absolute, symlink-free path of the installed `recipes`, as `/proc/self/exe` names it.
func recipesExecutable() -> String {
    guard let resolved = realpath(installedRecipes, nil) else { return installedRecipes }
    defer { free(resolved) }
    return String(cString: resolved)
}

@Suite("cron install names a recipes that lasts, and says when no cron daemon would run the line")
struct CronExecutableTests {
    @Test("a build folder's recipes is replaced by the installed one on PATH, or refused with what to do", arguments: [
        ("/usr/local/bin/recipes", "/usr/bin:/bin", [String](), "running /usr/local/bin/recipes"),
        ("/home/me/src/recipes/.build/release/recipes", "/home/me/.local/bin:/usr/local/bin:/usr/bin",
         ["/usr/local/bin/recipes"], "installed /usr/local/bin/recipes"),
        ("/home/me/src/recipes/.build/x86_64-unknown-linux-gnu/debug/recipes", "/home/me/.local/bin:/usr/local/bin",
         ["/home/me/.local/bin/recipes", "/usr/local/bin/recipes"], "installed /home/me/.local/bin/recipes"),
        ("/src/.build-tsan/debug/recipes", "/src/.build/release:/usr/bin", ["/src/.build/release/recipes"], "refused"),
        ("/src/.build/release/recipes", "relative/bin:/usr/bin", ["relative/bin/recipes"], "refused"),
        ("/opt/build/recipes", "/usr/bin", [], "running /opt/build/recipes"),
    ] as [(String, String, [String], String)])
    func choose(running: String, path: String, executables: [String], expected: String) {
        let choice = CronExecutable.choose(running: running, searchPath: path, isExecutable: executables.contains)
        switch choice {
        case .running(let path): #expect(expected == "running \(path)")
        case .installed(let path, let instead): #expect(expected == "installed \(path)" && instead == running)
        case .refused(let words):
            #expect(expected == "refused")
            #expect(words.contains("make install") && words.contains(running), "\(words)")
        }
    }

    @Test("a cron daemon is told by its program name in /proc", arguments: [
        (["bash", "cron\n"], true), (["crond\n"], true), (["fcron"], true), (["anacron", "cronolog", "bash"], false),
        ([], false),
    ] as [([String], Bool)])
    func daemonNames(commands: [String], running: Bool) {
        #expect(CronDaemon.isAmong(commands) == running)
    }

    @Test("a /proc of real files: the daemon is found by its comm, and none when no process is one")
    func daemonInProc() throws {
        let proc = TemporaryDirectory()
        for (pid, name) in [("1", "init"), ("42", "bash"), ("self", "cron")] {
            let folder = proc.url.appendingPathComponent(pid)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try (name + "\n").write(to: folder.appendingPathComponent("comm"), atomically: true, encoding: .utf8)
        }
        #expect(!CronDaemon.isRunning(proc: proc.url.path), "only numeric entries are processes")
        let cron = proc.url.appendingPathComponent("977")
        try FileManager.default.createDirectory(at: cron, withIntermediateDirectories: true)
        try "cron\n".write(to: cron.appendingPathComponent("comm"), atomically: true, encoding: .utf8)
        #expect(CronDaemon.isRunning(proc: proc.url.path))
    }

    @Test("run from the build folder: refused without an installed recipes, the installed one used with a note; the crontab is a stand-in")
    func buildFolderBinary() throws {
        let dir = TemporaryDirectory()
        let standIn = dir.url.appendingPathComponent("stand-in")
        try FileManager.default.createDirectory(at: standIn, withIntermediateDirectories: true)
        let crontab = standIn.appendingPathComponent("crontab").path
        try "#!/bin/sh\ncase \"$1\" in -l) cat \"$(dirname \"$0\")/current\" 2>/dev/null || exit 0 ;; -) cat > \"$(dirname \"$0\")/current\" ;; esac\n"
            .write(toFile: crontab, atomically: true, encoding: .utf8)
        chmod(crontab, 0o755)
        let refused = try runRecipes(["cron", "install", "--home", dir.homePath], environment: ["PATH": standIn.path + ":/usr/bin:/bin"])
        #expect(refused.status == 1, "\(refused)")
        #expect(refused.stderr.contains("this recipes runs from a build folder (") && refused.stderr.contains("`make install`"), "\(refused)")
        #expect(!FileManager.default.fileExists(atPath: standIn.appendingPathComponent("current").path), "nothing installed")
        let folder = URL(fileURLWithPath: installedRecipes).deletingLastPathComponent().path
        let used = try runRecipes(
            ["cron", "install", "--home", dir.homePath], environment: ["PATH": standIn.path + ":" + folder + ":/usr/bin:/bin"])
        #expect(used.status == 0, "\(used)")
        #expect(used.stdout.contains("'\(installedRecipes)' sync --background"), "\(used)")
        #expect(used.stderr.hasPrefix("note: this recipes runs from a build folder ("), "\(used)")
        #expect(used.stderr.contains("the line runs the installed \(installedRecipes), which `make clean` leaves alone"))
        #expect(used.stderr.hasSuffix(daemonWarning), "\(used.stderr)")
    }
}
