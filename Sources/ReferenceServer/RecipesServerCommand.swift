import ArgumentParser
import Foundation
import Logging

/// The `recipes-server` command: parses the options of CONTRACT section 4 and runs the reference server.
public struct RecipesServerCommand: AsyncParsableCommand {
    /// The command's name, abstract and the `--fault` grammar shown by `--help`.
    public static let configuration = CommandConfiguration(
        commandName: "recipes-server",
        abstract: "The reference server of the recipes HTTP contract (recipes in SQLite, images as files).",
        discussion: """
            Prints one line to stdout once listening: "listening on http://HOST:PORT" (with --port 0, the port chosen). \
            Logs go to stderr. SIGINT or SIGTERM stop it gracefully.

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
    }

    /// Starts the server and runs until SIGINT or SIGTERM.
    public func run() async throws {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .info
            return handler
        }
        let rules = try fault.map { spec in try FaultRule.parse(spec) }
        let configuration = ReferenceServerConfiguration(
            dataDirectory: data, host: host, port: port,
            token: Self.effectiveToken(option: token, environment: ProcessInfo.processInfo.environment), maxImageBytes: maxImageBytes,
            requestLogPath: requestLog, faults: rules, synchronousImageWrites: !noFsync)
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
