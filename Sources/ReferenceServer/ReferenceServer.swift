import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// The reference server of the recipes HTTP contract: Hummingbird routes over GRDB and image files under `--data`.
public struct ReferenceServer: Sendable {
    /// The options it was started with.
    public let configuration: ReferenceServerConfiguration
    private let database: ServerDatabase
    private let changeSignal: ChangeSignal
    private let images: ImageStore
    private let partials: PartialUploads
    private let requestLog: RequestLog?
    private let plan: FaultPlan
    private let logger: Logger

    /// Opens the data directory (creating it, the database and `images/`) and the request log.
    public init(configuration: ReferenceServerConfiguration, logger: Logger = Logger(label: "recipes-server")) throws(ServerSetupError) {
        self.configuration = configuration
        self.logger = logger
        do {
            try FileManager.default.createDirectory(atPath: configuration.dataDirectory, withIntermediateDirectories: true)
        } catch {
            throw ServerSetupError("Cannot create the data directory \(configuration.dataDirectory). Choose a writable --data directory.")
        }
        database = try ServerDatabase(path: configuration.dataDirectory + "/server.sqlite3")
        changeSignal = ChangeSignal(latest: database.lastSequenceAtOpen)
        images = try ImageStore(directory: configuration.dataDirectory + "/images", synchronous: configuration.synchronousImageWrites)
        partials = try PartialUploads(directory: configuration.dataDirectory + "/uploads", database: database,
                                      lifetime: configuration.partialLifetime)
        requestLog = try configuration.requestLogPath.map { (path) throws(ServerSetupError) in try RequestLog(path: path) }
        plan = FaultPlan(rules: configuration.faults)
    }

    /// Builds the Hummingbird application; `onListening` receives the bound base URL once the socket is bound.
    func makeApplication(onListening: @escaping @Sendable (String) async -> Void) -> some ApplicationProtocol {
        let router = Router(context: ServerRequestContext.self)
        router.add(middleware: RequestRecordMiddleware(log: requestLog))
        if !plan.rules.isEmpty { router.add(middleware: FaultMiddleware(plan: plan, keepsPartialUploads: configuration.features.contains(.resumableImages))) }
        router.add(middleware: ErrorBodyMiddleware())
        if let token = configuration.token { router.add(middleware: BearerTokenMiddleware(token: Array(token.utf8))) }
        ServerRoutes(database: database, changeSignal: changeSignal, images: images, partials: partials,
                     maxImageBytes: configuration.maxImageBytes, features: configuration.features)
            .register(on: router)

        let host = configuration.host
        let preflight = RequestPreflight(token: configuration.token.map { Array($0.utf8) }, maxImageBytes: configuration.maxImageBytes,
                                         features: configuration.features)
        let timeouts = configuration.timeouts
        return Application(
            router: router,
            server: .http1(configuration: .init(additionalChannelHandlers: [
                ExpectContinueHandler(preflight: preflight), OversizedHeadHandler(), ConnectionTimeoutHandler(timeouts: timeouts),
            ])),
            configuration: .init(address: .hostname(host, port: configuration.port), serverName: "recipes-server"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                let shownHost = host.contains(":") ? "[\(host)]" : host
                await onListening("http://\(shownHost):\(port)")
            },
            logger: logger
        )
    }

    /// Runs until SIGINT or SIGTERM, then shuts down gracefully: in-flight requests get the drain timeout to finish,
    /// then their connections are closed.
    public func run(onListening: @escaping @Sendable (String) async -> Void) async throws {
        let application = makeApplication(onListening: onListening)
        try await ServiceGroup(configuration: serviceGroupConfiguration(application, handlingSignals: true)).run()
    }

    /// The service group of the application: graceful shutdown on SIGTERM and SIGINT when `handlingSignals`,
    /// escalated to cancellation shortly after the drain timeout in case a handler outlives its closed connection.
    private func serviceGroupConfiguration(_ application: some Service, handlingSignals: Bool) -> ServiceGroupConfiguration {
        var group = ServiceGroupConfiguration(services: [application], gracefulShutdownSignals: handlingSignals ? [.sigterm, .sigint] : [],
                                              logger: logger)
        group.maximumGracefulShutdownDuration = configuration.timeouts.drain + Self.cancellationMargin
        return group
    }

    /// How long after the drain timeout a shutdown that is still waiting for a handler cancels it.
    static let cancellationMargin: Duration = .seconds(1)

    /// Starts the server in this process (for tests and tools) and returns once it is listening.
    public func start() async throws -> RunningReferenceServer {
        let (stream, continuation) = AsyncStream<String>.makeStream()
        let app = makeApplication { url in continuation.yield(url) }
        let group = ServiceGroup(configuration: serviceGroupConfiguration(app, handlingSignals: false))
        let task = Task {
            defer { continuation.finish() }
            try await group.run()
        }
        var iterator = stream.makeAsyncIterator()
        guard let url = await iterator.next() else {
            _ = try await task.value
            throw ServerSetupError("The server stopped before it was listening.")
        }
        return RunningReferenceServer(baseURL: url, group: group, task: task)
    }
}

/// A server started in-process by `ReferenceServer.start()`.
public struct RunningReferenceServer: Sendable {
    /// The bound base URL, e.g. `http://127.0.0.1:41234`.
    public let baseURL: String
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    init(baseURL: String, group: ServiceGroup, task: Task<Void, any Error>) {
        self.baseURL = baseURL
        self.group = group
        self.task = task
    }

    /// The bound port.
    public var port: Int { Int(baseURL.split(separator: ":").last ?? "") ?? 0 }

    /// Shuts the server down gracefully (in-flight requests get the drain timeout to finish, stalls are released) and
    /// waits until it has stopped.
    public func stop() async {
        await group.triggerGracefulShutdown()
        _ = try? await task.value
    }
}
