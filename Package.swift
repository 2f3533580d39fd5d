// swift-tools-version: 6.1
// The recipes package: an offline-first recipe client and its reference server.
//
// One target per layer; the folders under Sources/ are the architecture:
//   RecipeModels        pure value types (recipe, ingredient, step, image, sync state)
//   CSQLite / RecipeStore  SQLite through GRDB: migrations, edits, sync bookkeeping, media copies, doctor
//   Locking             Locked<Value>, every target's lock (a pthread mutex ThreadSanitizer can see)
//   CLinux / SystemFiles  AtomicFile (temporary name, fsync, rename), writeAll, syncfs, ErrnoError: every writer's
//                       file calls
//   OperationEngine     generic operations, conditions, exclusivity, observers, retry, queue
//   CCurl / Transport   libcurl behind a typed, cancellable HTTP client; outcome classification
//   MealieAPI           a Mealie 2.x server's requests and answers, the mapping of the whole recipe, and the operations
//                       a destination needs, for Mealie
//   RecipeSync          the sync engine: per-recipe chains (image, then JSON) on the engine, leases, cancellation
//   SyncWatch           `recipes sync --watch`: the watcher's event sources (edits, rtnetlink, signals, the long
//                       poll, the retry timer) running the pure WatchMachine of RecipeModels
//   CEditLine           libedit for the interactive REPL
//   CZlib / Archives    zlib's inflate and CRC-32 behind a zip reader and gunzip, for Paprika's exports
//   RecipesCommandLine  the `recipes` commands and the REPL (executable: recipes)
//   ReferenceServer     the HTTP contract's reference server (executable: recipes-server)
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "recipes",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "recipes", targets: ["RecipesExecutable"]),
        .executable(name: "recipes-server", targets: ["RecipesServerExecutable"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
    ],
    targets: [
        // MARK: Models
        .target(
            name: "RecipeModels",
            swiftSettings: strictSettings
        ),

        // MARK: Store
        // The system SQLite GRDB also links, for the one setting GRDB does not expose (see Sources/CSQLite/shim.h).
        .systemLibrary(
            name: "CSQLite",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .target(
            name: "RecipeStore",
            dependencies: [
                "RecipeModels",
                "Locking",
                "SystemFiles",
                "CSQLite",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),

        // MARK: Operation engine
        .target(
            name: "Locking",
            swiftSettings: strictSettings
        ),
        // The one atomic file writer and the one errno error, for the store, the command line, the transport and
        // the server.
        .target(
            name: "SystemFiles",
            dependencies: ["Locking", "CLinux"],
            swiftSettings: strictSettings
        ),
        // Linux calls Swift's Glibc module does not declare (`syncfs`, `ppoll`), the TUN device ioctl (LinkDelay), and
        // rtnetlink's declarations for the watcher.
        .systemLibrary(name: "CLinux"),
        .target(
            name: "OperationEngine",
            dependencies: [
                "Locking",
                .product(name: "DequeModule", package: "swift-collections"),
            ],
            swiftSettings: strictSettings
        ),

        // MARK: Transport
        // libcurl's headers (libcurl4-openssl-dev) with typed wrappers of its variadic functions; libcurl itself is
        // loaded with dlopen at the first transfer (Sources/CCurl/loader.c), so it is not linked.
        .target(
            name: "CCurl",
            linkerSettings: [.linkedLibrary("dl")]
        ),
        .target(
            name: "Transport",
            dependencies: ["CCurl", "Locking", "SystemFiles"],
            swiftSettings: strictSettings
        ),

        // MARK: Mealie
        // A Mealie 2.x server's REST API as plain functions: requests built, answers read into small typed values,
        // the pull's window, deletions, creation exactly once (docs/mealie.md).
        .target(
            name: "MealieAPI",
            dependencies: ["RecipeModels", "Transport", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strictSettings
        ),

        // MARK: Sync
        .target(
            name: "RecipeSync",
            dependencies: ["RecipeModels", "RecipeStore", "OperationEngine", "Transport", "Locking", "MealieAPI"],
            swiftSettings: strictSettings
        ),

        // MARK: Watch
        .target(
            name: "SyncWatch",
            dependencies: ["RecipeModels", "RecipeStore", "RecipeSync", "Transport", "Locking", "SystemFiles", "CLinux"],
            swiftSettings: strictSettings
        ),

        // MARK: Archives
        // zlib (zlib1g-dev) for the zip archives and gzip data of Paprika's exports: a zip reader (central directory,
        // stored and deflated entries, sizes and CRC-32 checked, what may be unpacked bounded) and gunzip.
        .systemLibrary(
            name: "CZlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        .target(
            name: "Archives",
            dependencies: ["CZlib"],
            swiftSettings: strictSettings
        ),

        // MARK: Command line
        .systemLibrary(
            name: "CEditLine",
            pkgConfig: "libedit",
            providers: [.apt(["libedit-dev"])]
        ),
        .target(
            name: "RecipesCommandLine",
            dependencies: [
                "RecipeModels",
                "RecipeStore",
                "RecipeSync",
                "SyncWatch",
                "Transport",
                "Locking",
                "SystemFiles",
                "CEditLine",
                "Archives",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "TOMLKit", package: "TOMLKit"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "RecipesExecutable",
            dependencies: ["RecipesCommandLine", "SystemFiles"],
            path: "Sources/recipes",
            swiftSettings: strictSettings
        ),

        // MARK: Reference server
        .target(
            name: "ReferenceServer",
            dependencies: [
                "Locking",
                "SystemFiles",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "RecipesServerExecutable",
            dependencies: ["ReferenceServer", "SystemFiles"],
            path: "Sources/recipes-server",
            swiftSettings: strictSettings
        ),

        // MARK: Tests
        .testTarget(
            name: "RecipeModelsTests",
            dependencies: ["RecipeModels", .product(name: "PropertyBased", package: "swift-property-based")],
            swiftSettings: strictSettings
        ),
        .target(
            name: "RecipesTestSupport",
            dependencies: ["RecipeStore", "RecipeModels", .product(name: "GRDB", package: "GRDB.swift")],
            path: "Tests/RecipesTestSupport",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "RecipeStoreTests",
            dependencies: [
                "RecipeStore", "RecipeModels", "RecipesTestSupport", .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "SystemFilesTests",
            dependencies: ["SystemFiles", "Locking"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ArchivesTests",
            dependencies: ["Archives"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "LockingTests",
            dependencies: ["Locking"],
            swiftSettings: strictSettings
        ),
        // The engine's test doubles (a manual clock, a fake reachability probe, seeded and fixed random sources), for
        // the engine's and the sync's tests; the product does not link them.
        .target(
            name: "OperationEngineTestSupport",
            dependencies: ["OperationEngine", "Locking"],
            path: "Tests/OperationEngineTestSupport",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "OperationEngineTests",
            dependencies: ["OperationEngine", "OperationEngineTestSupport", "Locking"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "RecipesCommandLineTests",
            dependencies: [
                "RecipesCommandLine", "RecipeStore", "RecipeModels", "RecipeSync", "RecipesExecutable", "RecipesTestSupport",
                "Locking",
            ],
            swiftSettings: strictSettings
        ),
        // A tiny HTTP/1.1 server on POSIX sockets that can misbehave on purpose (stall, reset, trickle, answer like a
        // captive portal), for the transport's and the sync's tests.
        .target(
            name: "HTTPTestSupport",
            dependencies: ["Locking", "Transport"],
            path: "Tests/HTTPTestSupport",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "TransportTests",
            dependencies: ["Transport", "Locking", "HTTPTestSupport"],
            exclude: ["Fixtures"],
            swiftSettings: strictSettings
        ),
        // A real Mealie started once per test process through ../shared/peers/mealie/mealie-up.sh (when
        // RECIPES_MEALIE_TESTS=1, as `make mealie-tests` sets it), stopped at exit or by the next start.
        .target(
            name: "MealieTestSupport",
            dependencies: ["MealieAPI", "Transport", "Locking"],
            path: "Tests/MealieTestSupport",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "MealieAPITests",
            dependencies: ["MealieAPI", "MealieTestSupport", "HTTPTestSupport", "RecipeModels", "Transport", "Locking"],
            exclude: ["Fixtures"],
            swiftSettings: strictSettings
        ),
        // `recipes sync` with server.kind mealie, the debug binary against the real Mealie (RECIPES_MEALIE_TESTS=1).
        .testTarget(
            name: "MealieSyncTests",
            dependencies: [
                "RecipesExecutable", "MealieAPI", "MealieTestSupport", "HTTPTestSupport", "RecipesTestSupport", "Transport",
                "Locking",
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "FaultProxyTests",
            dependencies: ["HTTPTestSupport", "Transport", "Locking"],
            swiftSettings: strictSettings
        ),
        // @@SERVER-TESTS@@ (the server work adds its test targets here)
        .testTarget(
            name: "ReferenceServerTests",
            dependencies: [
                "ReferenceServer", "RecipesServerExecutable", .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"), .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "RecipeSyncTests",
            dependencies: [
                "RecipeSync", "RecipeStore", "RecipeModels", "OperationEngine", "OperationEngineTestSupport", "Transport",
                "ReferenceServer", "MealieAPI",
                "RecipesTestSupport", "HTTPTestSupport", "Locking", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"), .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "SyncWatchTests",
            dependencies: [
                "SyncWatch", "RecipeSync", "RecipeStore", "RecipeModels", "Transport", "RecipesTestSupport", "Locking",
                "CLinux", "ReferenceServer", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "SyncEndToEndTests",
            dependencies: [
                "RecipesExecutable", "RecipesServerExecutable", "RecipesTestSupport", "HTTPTestSupport", "RecipeStore",
                "RecipeModels", "Locking",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ConformanceTests",
            dependencies: ["Transport", "ReferenceServer", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strictSettings
        ),

        // MARK: Benchmarks (release builds, run by `make bench`)
        // @@BENCHMARKS@@ (each benchmark executable is added here, path: "Benchmarks/<Name>")
        .executableTarget(
            name: "EngineBenchmark",
            dependencies: ["OperationEngine", "Locking"],
            path: "Benchmarks/EngineBenchmark",
            swiftSettings: strictSettings
        ),
        // Two TUN devices joined by a link with a fixed delay and a rate limit, for the benches on a real-looking network.
        .executableTarget(
            name: "LinkDelay",
            dependencies: ["CLinux"],
            path: "Benchmarks/LinkDelay",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "EditSignalBenchmark",
            dependencies: ["RecipeStore", "SyncWatch"],
            path: "Benchmarks/EditSignalBenchmark",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "SearchBenchmark",
            dependencies: ["RecipeStore"],
            path: "Benchmarks/SearchBenchmark",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "TransportBenchmark",
            dependencies: ["Transport", "Locking"],
            path: "Benchmarks/TransportBenchmark",
            swiftSettings: strictSettings
        ),
    ]
)
