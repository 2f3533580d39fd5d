import ArgumentParser
import Foundation
import Logging

/// The `recipes-server` command: parses the options of docs/recipes-server.md and runs the reference server.
public struct RecipesServerCommand: AsyncParsableCommand {
    /// The command's name, abstract and the `--fault` grammar shown by `--help`.
    public static let configuration = CommandConfiguration(
        commandName: "recipes-server",
        abstract: "The reference server of the recipes HTTP contract (recipes in SQLite, images as files).",
        discussion: """
            Prints one line to stdout once listening: "listening on http://HOST:PORT" (with --port 0, the port chosen). \
            Logs go to stderr. SIGINT or SIGTERM stop it gracefully: no new connections, requests in progress get \
            --drain-timeout to finish, then every connection is closed and it exits 0.

            Timeouts: a connection with no request for --idle-timeout is closed; a request body that sends no byte for \
            --body-timeout, or less than --min-body-rate bytes per second over a --body-timeout period, is answered 408 \
            and nothing of it is stored. A request head over 80 KiB is answered 431. DURATION: 500ms, 30s, 1.5m.

            \(FaultRule.syntaxHelp)

            --request-log FILE appends one JSON object per request and line: start, end, method, path, \
            status (null when no answer was sent), bytesReceived, bodyComplete, fault. See docs/recipes-server.md.
            """
    )

    /// The data directory.
    @Option(name: .long, help: ArgumentHelp("Directory for server.sqlite3 and images/ (created if missing).", valueName: "DIR"))
    public var data: String

    /// The address to bind.
    @Option(name: .long, help: "Address to bind.")
    public var host: String = "127.0.0.1"

    /// The port to bind.
    @Option(name: .long, help: "Port to bind; 0 picks a free port (printed on stdout).")
    public var port: Int = 8080

    /// The bearer token.
    @Option(name: .long, help: ArgumentHelp("Require 'Authorization: Bearer T' on every request except GET /v1/health. "
                                            + "Or set \(tokenVariable)=T (not visible in ps); --token wins.", valueName: "T"))
    public var token: String?

    /// The environment variable read for the token when `--token` is not given.
    public static let tokenVariable = "RECIPES_SERVER_TOKEN"

    /// The token in effect: `--token`, else `RECIPES_SERVER_TOKEN` from `environment`, else none.
    public static func effectiveToken(option: String?, environment: [String: String]) -> String? {
        option ?? environment[tokenVariable]
    }

    /// The image size limit.
    @Option(name: .long, help: ArgumentHelp("Largest image accepted, in bytes (default 20 MiB); larger uploads get 413.", valueName: "N"))
    public var maxImageBytes: Int64 = ReferenceServerConfiguration.defaultMaxImageBytes

    /// The request log path.
    @Option(name: .long, help: ArgumentHelp("Append one JSON line per request to FILE.", valueName: "FILE"))
    public var requestLog: String?

    /// The fault rules.
    @Option(name: .long, help: ArgumentHelp("Inject a fault (repeatable); syntax below.", valueName: "SPEC"))
    public var fault: [String] = []

    /// Whether to skip `fsync` of images.
    @Flag(name: .long, help: "Do not fsync each image before acknowledging it (faster, less durable).")
    public var noFsync = false

    /// The optional requests to answer, as written.
    @Option(name: .long, help: ArgumentHelp("Optional requests to answer and list in /v1/health: all, none, or a comma-separated "
                                            + "list of images-missing, recipes-batch, resumable-images.", valueName: "LIST"))
    public var features = "all"

    /// The idle timeout, as written.
    @Option(name: .long, help: ArgumentHelp("Close a connection with no request in progress after DURATION.", valueName: "DURATION"))
    public var idleTimeout = "60s"

    /// The body progress period, as written.
    @Option(name: .long, help: ArgumentHelp("End (408) a request whose body sends no byte for DURATION, or less than --min-body-rate "
                                            + "per second over a period of DURATION.", valueName: "DURATION"))
    public var bodyTimeout = "30s"

    /// The least body rate, as written.
    @Option(name: .long, help: ArgumentHelp("Least request-body bytes per second over each --body-timeout period "
                                            + "(0: any byte will do).", valueName: "SIZE"))
    public var minBodyRate = "1KiB"

    /// The drain timeout, as written.
    @Option(name: .long, help: ArgumentHelp("On SIGINT/SIGTERM, give requests in progress DURATION to finish, then close their "
                                            + "connections.", valueName: "DURATION"))
    public var drainTimeout = "10s"

    /// Creates the command with default values (ArgumentParser fills it).
    public init() {}

    /// Checks the options; a bad value is a usage error (exit 64).
    public func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0...65535 (0 picks a free port), not \(port).") }
        guard maxImageBytes > 0 else { throw ValidationError("--max-image-bytes must be a positive number of bytes.") }
        guard !host.isEmpty else { throw ValidationError("--host must not be empty.") }
        if let token = Self.effectiveToken(option: token, environment: ProcessInfo.processInfo.environment),
           token.isEmpty || token.contains(where: { $0.isWhitespace }) {
            throw ValidationError("\(self.token == nil ? Self.tokenVariable : "--token") must be non-empty and contain no spaces.")
        }
        for spec in fault {
            do { _ = try FaultRule.parse(spec) } catch { throw ValidationError(error.errorDescription ?? "Bad --fault.") }
        }
        guard ServerFeature.parseList(features) != nil else {
            throw ValidationError("--features must be all, none, or a comma-separated list of "
                                  + "\(ServerFeature.allCases.map(\.rawValue).joined(separator: ", ")), not \"\(features)\".")
        }
        _ = try timeouts()
    }

    /// The timeouts the options give; a bad value is a `ValidationError` naming the option.
    public func timeouts() throws(ValidationError) -> ServerTimeouts {
        func duration(_ option: String, _ text: String) throws(ValidationError) -> Duration {
            guard let value = FaultRule.parseDuration(text), value > .zero else {
                throw ValidationError("\(option) must be a positive duration such as 500ms, 30s or 2m, not \"\(text)\".")
            }
            return value
        }
        guard let rate = FaultRule.parseByteSize(minBodyRate) else {
            throw ValidationError("--min-body-rate must be a size in bytes per second such as 0, 512 or 1KiB, not \"\(minBodyRate)\".")
        }
        return ServerTimeouts(idle: try duration("--idle-timeout", idleTimeout), body: try duration("--body-timeout", bodyTimeout),
                              minimumBodyRate: rate, drain: try duration("--drain-timeout", drainTimeout))
    }

    /// Starts the server and runs until SIGINT or SIGTERM.
    public func run() async throws {
        // Notices and errors: the server's own lines are its errors (and stdout's "listening on"); the framework's
        // info lines ("Server started and listening on …") would come before that line on a terminal.
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .notice
            return handler
        }
        let rules = try fault.map { spec in try FaultRule.parse(spec) }
        let configuration = ReferenceServerConfiguration(
            dataDirectory: data, host: host, port: port,
            token: Self.effectiveToken(option: token, environment: ProcessInfo.processInfo.environment), maxImageBytes: maxImageBytes,
            requestLogPath: requestLog, faults: rules, synchronousImageWrites: !noFsync, timeouts: try timeouts(),
            features: ServerFeature.parseList(features) ?? ServerFeature.all)
        let server: ReferenceServer
        do { server = try ReferenceServer(configuration: configuration) } catch {
            FileHandle.standardError.write(Data("recipes-server: \(error.message)\n".utf8))
            throw ExitCode(1)
        }
        do {
            try await server.run { url in
                FileHandle.standardOutput.write(Data("listening on \(url)\n".utf8))
            }
        } catch {
            FileHandle.standardError.write(Data("recipes-server: cannot serve on \(host):\(port): \(error). Choose another --host/--port.\n".utf8))
            throw ExitCode(1)
        }
    }
}
