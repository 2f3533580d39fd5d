import Foundation
import RecipesTestSupport
import Testing
@testable import RecipeStore
@testable import RecipesCommandLine

@Suite("recipes service: the systemd user units as text")
struct SystemdUnitsTests {
    static let home = "/home/me/.local/share/recipes"

    func units(_ kind: SystemdUnits.Kind, home: String = home, executable: String = "/usr/local/bin/recipes",
               assignments: [CrontabEntry.Assignment] = [], version: Int? = 252) -> SystemdUnits {
        SystemdUnits(name: "recipes-sync", home: home, executable: executable, assignments: assignments, kind: kind,
                     systemdVersion: version)
    }

    @Test("the watcher's service: tag, sync --watch by its stable path, reload by SIGHUP, restart on failure")
    func watchService() throws {
        let files = try units(.watch, assignments: [.init(name: "RECIPES_HOME", value: Self.home)]).files()
        #expect(files == [SystemdUnits.File(name: "recipes-sync.service", text: """
            # recipes-service home=/home/me/.local/share/recipes
            # Written by `recipes service install`; `recipes service uninstall` removes it.
            [Unit]
            Description=recipes: sync /home/me/.local/share/recipes whenever there is something to do

            [Service]
            Type=exec
            Environment="RECIPES_HOME=/home/me/.local/share/recipes"
            ExecStart="/usr/local/bin/recipes" sync --watch
            ExecReload=/bin/kill -HUP $MAINPID
            Restart=on-failure
            RestartSec=10s

            [Install]
            WantedBy=default.target

            """)])
    }

    @Test("systemd 254 and later also get a growing back-off between restarts", arguments: [
        (nil, false), (252, false), (253, false), (254, true), (256, true),
    ] as [(Int?, Bool)])
    func restartSteps(version: Int?, steps: Bool) throws {
        let text = try #require(try units(.watch, version: version).files().first).text
        #expect(text.contains("RestartSteps=6\nRestartMaxDelaySec=10min\n") == steps)
        #expect(text.contains("Restart=on-failure\nRestartSec=10s\n"))
    }

    @Test("--timer: a oneshot sync --background (75 is no failure) and a persistent timer every N minutes")
    func timerUnits() throws {
        let files = try units(.timer(every: try CronSchedule(everyMinutes: 15))).files()
        #expect(files.map(\.name) == ["recipes-sync.service", "recipes-sync.timer"])
        try #require(files.count == 2)
        #expect(files[0].text == """
            # recipes-service home=/home/me/.local/share/recipes
            # Written by `recipes service install`; `recipes service uninstall` removes it.
            [Unit]
            Description=recipes: sync /home/me/.local/share/recipes once (started by recipes-sync.timer)

            [Service]
            Type=oneshot
            ExecStart="/usr/local/bin/recipes" sync --background
            SuccessExitStatus=75

            """)
        #expect(files[1].text == """
            # recipes-service home=/home/me/.local/share/recipes
            # Written by `recipes service install`; `recipes service uninstall` removes it.
            [Unit]
            Description=recipes: sync /home/me/.local/share/recipes every 15 min

            [Timer]
            OnCalendar=*-*-* *:00/15:00
            Persistent=true

            [Install]
            WantedBy=timers.target

            """)
    }

    @Test("OnCalendar keeps cron's times: every N minutes from the hour, every H hours from midnight, daily", arguments: [
        (1, "*-*-* *:00/1:00"), (5, "*-*-* *:00/5:00"), (59, "*-*-* *:00/59:00"), (60, "*-*-* 00/1:00:00"),
        (120, "*-*-* 00/2:00:00"), (720, "*-*-* 00/12:00:00"), (1440, "*-*-* 00:00:00"),
    ])
    func calendars(minutes: Int, calendar: String) throws {
        #expect(SystemdUnits.calendar(try CronSchedule(everyMinutes: minutes)) == calendar)
    }

    @Test("paths are double-quoted with \\ and \" escaped, % doubled everywhere and $ doubled in commands", arguments: [
        ("/opt/my apps/recipes", true, #""/opt/my apps/recipes""#),
        (#"/opt/a"b\c"#, true, #""/opt/a\"b\\c""#),
        ("/srv/100%/recipes", true, #""/srv/100%%/recipes""#),
        ("/srv/$HOME/recipes", true, #""/srv/$$HOME/recipes""#),
        ("RECIPES_HOME=/srv/$HOME/100%", false, #""RECIPES_HOME=/srv/$HOME/100%%""#),
    ])
    func quoting(text: String, forCommand: Bool, quoted: String) {
        #expect(SystemdUnits.quoted(text, forCommand: forCommand) == quoted)
    }

    @Test("a home or executable with a control character (a line break) cannot go into a unit: refused, saying why")
    func controlCharactersRefused() {
        let error = #expect(throws: CommandLineError.self) { try units(.watch, home: "/tmp/a\nb").files() }
        #expect(error?.message.contains("holds a control character (U+A)") == true)
    }

    @Test("the default home's units are recipes-sync; another home's carry a hash of its path")
    func names() {
        #expect(SystemdUnits.name(for: RecipesHome(url: URL(fileURLWithPath: "/x/recipes"), isExplicit: false)) == "recipes-sync")
        let a = SystemdUnits.name(for: RecipesHome(url: URL(fileURLWithPath: "/srv/a"), isExplicit: true))
        let b = SystemdUnits.name(for: RecipesHome(url: URL(fileURLWithPath: "/srv/b"), isExplicit: true))
        #expect(a.hasPrefix("recipes-sync-") && a.count == "recipes-sync-".count + 8 && a != b)
        #expect(a == SystemdUnits.name(for: RecipesHome(url: URL(fileURLWithPath: "/srv/a"), isExplicit: true)))
    }

    @Test("the version of `systemctl --version`'s first line", arguments: [
        ("systemd 252 (252.38-1~deb12u1)\n+PAM +AUDIT", 252), ("systemd 256 (256.7)", 256), ("", nil), ("upstart 1.0", nil),
    ] as [(String, Int?)])
    func version(output: String, version: Int?) {
        #expect(UserManager.version(in: output) == version)
    }

    @Test("with a user manager: a watcher is enabled and restarted (so it runs the new unit); a timer replaces it")
    func commands() throws {
        #expect(ServiceCommand.Install.commands(units(.watch)) == [
            ["daemon-reload"], ["enable", "recipes-sync.service"], ["restart", "recipes-sync.service"],
        ])
        #expect(ServiceCommand.Install.commands(units(.timer(every: try CronSchedule(everyMinutes: 5)))) == [
            ["daemon-reload"], ["stop", "recipes-sync.service"], ["enable", "--now", "recipes-sync.timer"],
        ])
    }

    @Test("a recipes executable in a SwiftPM build folder is recognised", arguments: [
        ("/work/recipes/.build/debug/recipes", true), ("/work/recipes/.build-tsan/debug/recipes", true),
        ("/usr/local/bin/recipes", false), ("/home/me/.local/bin/recipes", false), ("/opt/build/recipes", false),
    ])
    func buildFolders(path: String, inBuild: Bool) {
        #expect(InstalledExecutable.isInBuildFolder(path) == inBuild)
    }
}

@Suite("recipes service with the real binary: units written, replaced and removed; other files untouched")
struct ServiceCommandTests {
    /// A private account: HOME, XDG_CONFIG_HOME and a `bin/recipes` link to the built binary first on PATH.
    final class Account {
        let folder = TemporaryDirectory()
        var units: URL { folder.url.appendingPathComponent("config/systemd/user") }
        var bin: URL { folder.url.appendingPathComponent("bin") }
        var home: String { folder.homePath }

        init() throws {
            try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(
                at: bin.appendingPathComponent("recipes"), withDestinationURL: builtProduct("recipes"))
            try FileManager.default.createDirectory(at: units, withIntermediateDirectories: true)
        }

        var environment: [String: String] {
            ["HOME": folder.url.path, "XDG_CONFIG_HOME": folder.url.appendingPathComponent("config").path,
             "RECIPES_HOME": home, "PATH": "\(bin.path):/usr/bin:/bin", "XDG_RUNTIME_DIR": folder.url.path + "/no-runtime"]
        }

        /// `recipes ARGUMENTS` through the link on PATH, as an installed binary runs.
        func run(_ arguments: [String]) throws -> ProcessResult {
            try runRecipes(arguments, environment: environment, executable: bin.appendingPathComponent("recipes"))
        }

        /// Every file of the unit folder with its bytes.
        func snapshot() throws -> [String: Data] {
            var files: [String: Data] = [:]
            for name in try FileManager.default.contentsOfDirectory(atPath: units.path) {
                files[name] = FileManager.default.contents(atPath: units.appendingPathComponent(name).path)
            }
            return files
        }
    }

    /// `systemd-analyze verify` of `paths`: its exit status and what it said (nothing, for a clean unit).
    static func verify(_ paths: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/systemd-analyze")
        process.arguments = ["verify"] + paths
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    static let hasSystemdAnalyze = FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze")

    @Test("install, install again, --timer, uninstall: one unit set at a time, each verified by systemd-analyze; every other file byte for byte",
          .enabled(if: hasSystemdAnalyze, "systemd-analyze is missing: `apt-get install systemd` (make deps does)"))
    func lifeCycle() throws {
        let account = try Account()
        let others: [String: Data] = [
            "other.service": Data("[Service]\nExecStart=/bin/true\n".utf8),
            "notes.txt": Data([0xFF, 0xFE, 0x00, 0x41]),
            "recipes-sync-elsewhere.service": Data("# recipes-service home=/some/other/home\n[Service]\n".utf8),
        ]
        for (name, bytes) in others {
            #expect(FileManager.default.createFile(atPath: account.units.appendingPathComponent(name).path, contents: bytes))
        }
        let name = SystemdUnits.name(for: RecipesHome(url: URL(fileURLWithPath: account.home), isExplicit: true))
        let service = account.units.appendingPathComponent("\(name).service").path
        let timer = account.units.appendingPathComponent("\(name).timer").path

        let installed = try account.run(["service", "install"])
        #expect(installed.status == 0, "\(installed)")
        #expect(installed.stdout.hasPrefix("installed: \(service)\n"), "\(installed)")
        #expect(installed.stdout.contains("""
            systemd's user manager cannot be reached from here; to start the units, run:
              systemctl --user daemon-reload
              systemctl --user enable \(name).service
              systemctl --user restart \(name).service

            """), "\(installed)")
        #expect(installed.stdout.contains("loginctl enable-linger"), "\(installed)")
        let text = try String(contentsOfFile: service, encoding: .utf8)
        #expect(text.hasPrefix("# recipes-service home=\(account.home)\n"))
        #expect(text.contains("ExecStart=\"\(account.bin.path)/recipes\" sync --watch\n"), "the stable path, not .build: \(text)")
        #expect(text.contains("Environment=\"RECIPES_HOME=\(account.home)\"\n"))
        let checked = try Self.verify([service])
        #expect(checked.status == 0 && checked.output.isEmpty, "\(checked)")

        let again = try account.run(["service", "install"])
        #expect(again.status == 0 && again.stdout.hasPrefix("unchanged: \(service)\n"), "\(again)")
        #expect(try account.snapshot().keys.sorted() == (Array(others.keys) + ["\(name).service"]).sorted())

        let timed = try account.run(["service", "install", "--timer", "--every", "15"])
        #expect(timed.status == 0, "\(timed)")
        #expect(timed.stdout.hasPrefix("installed: \(service)\ninstalled: \(timer)\n"), "\(timed)")
        #expect(try String(contentsOfFile: service, encoding: .utf8).contains("Type=oneshot\n"))
        #expect(try String(contentsOfFile: timer, encoding: .utf8).contains("OnCalendar=*-*-* *:00/15:00\nPersistent=true\n"))
        let checkedTimer = try Self.verify([service, timer])
        #expect(checkedTimer.status == 0 && checkedTimer.output.isEmpty, "\(checkedTimer)")

        let shown = try account.run(["service", "show"])
        #expect(shown.status == 0 && shown.stdout.contains("# \(service)\n# recipes-service home=") && shown.stdout.contains("# \(timer)\n"))
        let status = try account.run(["service", "status"])
        #expect(status.status == 0, "\(status)")
        #expect(status.stdout.contains("watcher: not running\n") && status.stdout.contains("\(name).timer: installed"), "\(status)")

        let back = try account.run(["service", "install"])
        #expect(back.status == 0 && back.stdout.contains("removed: \(timer)\n"), "\(back)")
        #expect(!FileManager.default.fileExists(atPath: timer))

        let removed = try account.run(["service", "uninstall"])
        #expect(removed.status == 0 && removed.stdout.hasPrefix("removed: \(service)\n"), "\(removed)")
        #expect(try account.snapshot() == others)
        let none = try account.run(["service", "uninstall"])
        #expect(none.status == 0 && none.stdout == "no recipes units for \(account.home) in \(account.units.path)\n")
        let nothingToShow = try account.run(["service", "show"])
        #expect(nothingToShow.status == 1 && nothingToShow.stderr.hasPrefix("no recipes units for"))
        #expect(try account.run(["service", "status"]).status == 1)
    }

    @Test("a file of the unit's name that recipes did not write is never overwritten: refused, nothing changes")
    func foreignFileKept() throws {
        let account = try Account()
        let name = SystemdUnits.name(for: RecipesHome(url: URL(fileURLWithPath: account.home), isExplicit: true))
        let path = account.units.appendingPathComponent("\(name).service").path
        let mine = Data("[Service]\nExecStart=/bin/true\n".utf8)
        #expect(FileManager.default.createFile(atPath: path, contents: mine))
        let result = try account.run(["service", "install"])
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr == "recipes: \(path) exists and was not written by `recipes service` for \(account.home); move it away, then install again\n")
        #expect(try account.snapshot() == ["\(name).service": mine])
    }

    @Test("install while a watcher started by hand holds the home's lock: the units are written, and a note names its pid and how to stop it", arguments: [false, true])
    func handStartedWatcher(timer: Bool) throws {
        let account = try Account()
        #expect(try account.run(["new", "Soup"]).status == 0) // the home exists
        let lock = URL(fileURLWithPath: account.home).appendingPathComponent("watch.lock").path
        // One process holding the lock as a watcher does (flock), its pid written into the file in place.
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        holder.arguments = ["-c", """
            import fcntl, os, sys, time
            f = open(sys.argv[1], "a"); fcntl.flock(f, fcntl.LOCK_EX); f.truncate(0); f.write("%d\\n" % os.getpid()); f.flush()
            time.sleep(120)
            """, lock]
        try holder.run()
        // SIGKILL: a SIGTERM sent from here did not end it (measured: it slept its 120 s; the child keeps the signal
        // mask it was started with).
        defer { kill(holder.processIdentifier, SIGKILL); holder.waitUntilExit() }
        let pid = holder.processIdentifier
        // Until the holder has the lock, `service status` sees no watcher.
        var seen = false
        for _ in 0..<600 where !seen {
            seen = try account.run(["service", "status"]).stdout.contains("watcher: running (pid \(pid))")
            if !seen { usleep(100_000) }
        }
        #expect(seen, "the lock was not taken")
        let install = ["service", "install"] + (timer ? ["--timer"] : [])
        let result = try account.run(install)
        #expect(result.status == 0, "\(result)")
        let said = timer ? "the timer's syncs run beside it, which it makes unneeded" : "the service's watcher cannot start while it runs"
        #expect(result.stdout.contains("note: a watcher started by hand (pid \(pid)) already watches this home; \(said): "
            + "stop it (`kill \(pid)`, or Ctrl-C where it runs)\n"), "\(result)")
        // Installed again, the units are this home's: no note (the watcher running may be the service's own).
        #expect(!(try account.run(install).stdout.contains("started by hand")))
    }

    @Test("run from a build folder, with no installed recipes on PATH: refused, saying how to install it")
    func buildFolderRefused() throws {
        let account = try Account()
        var environment = account.environment
        environment["PATH"] = "/usr/bin:/bin"
        let result = try runRecipes(["service", "install"], environment: environment)
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("runs from a build folder") && result.stderr.contains("make install"), "\(result)")
        #expect(try account.snapshot().isEmpty)
    }

    @Test("--every without --timer, or an interval a timer cannot keep: usage errors (64)", arguments: [
        (["service", "install", "--every", "10"], "--every goes with --timer"),
        (["service", "install", "--timer", "--every", "7000"], "--every 7000 is not an interval"),
    ])
    func usage(arguments: [String], message: String) throws {
        let account = try Account()
        let result = try account.run(arguments)
        #expect(result.status == 64 && result.stderr.contains(message), "\(result)")
        #expect(try account.snapshot().isEmpty)
    }
}
