import ArgumentParser
import Foundation

/// `recipes config`: read and change `config.toml`.
struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Show or change settings (config.toml; the environment overrides it).",
        discussion: "Settings: " + ConfigKey.allCases.map { "\($0.rawValue) — \($0.summary)" }.joined(separator: "; "),
        subcommands: [Show.self, Get.self, Set.self, Unset.self])

    /// `config show`: every setting, its value and where it comes from; tokens hidden.
    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show every setting and where its value comes from.")
        @ParentCommand var config: ConfigCommand
        @OptionGroup var global: GlobalOptions

        func run() throws {
            let context = CommandContext(homeOption: global.home ?? config.root.home)
            try context.reportingFailures {
                let configuration = try context.configuration()
                var text = "# \(configuration.fileURL.path)\n"
                for key in ConfigKey.allCases {
                    guard let (value, source) = configuration.value(key) else {
                        text += "\(key.rawValue) = (unset)\n"
                        continue
                    }
                    let shown = key.isSecret ? "(set, hidden)" : (key.isInteger ? value : "\"\(value)\"")
                    let origin: String
                    switch source {
                    case .file: origin = ""
                    case .environment(let variable): origin = "  # from $\(variable)"
                    case .defaultValue: origin = "  # default"
                    }
                    text += "\(key.rawValue) = \(shown)\(origin)\n"
                }
                context.console.out(text)
            }
        }
    }

    /// `config get KEY`: one value; exit 1 when unset. A token is never printed.
    struct Get: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print one setting's value (exit 1 when unset; a token is shown only as set).")
        @ParentCommand var config: ConfigCommand
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The setting, e.g. server.url.") var key: String

        func run() throws {
            let context = CommandContext(homeOption: global.home ?? config.root.home)
            try context.reportingFailures {
                let key = try ConfigKey.named(key)
                guard let (value, _) = try context.configuration().value(key) else {
                    throw CommandLineError("\(key.rawValue) is not set; set it with `recipes config set \(key.rawValue) VALUE`")
                }
                context.console.out((key.isSecret ? "(set, hidden)" : value) + "\n")
            }
        }
    }

    /// `config set KEY VALUE`: validated, written atomically with mode 0600.
    struct Set: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change a setting in config.toml (VALUE `-` reads it from stdin, e.g. for a token).")
        @ParentCommand var config: ConfigCommand
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The setting, e.g. server.url.") var key: String
        @Argument(help: "The new value, or - to read it from standard input.") var value: String

        func run() throws {
            let context = CommandContext(homeOption: global.home ?? config.root.home)
            try context.reportingFailures {
                let key = try ConfigKey.named(key)
                var raw = value
                if raw == "-" {
                    guard let line = readLine(strippingNewline: true) else {
                        throw CommandLineError("no value on standard input for \(key.rawValue)")
                    }
                    raw = line
                }
                let normalized = try key.validateNew(raw)
                // Refuses to rewrite a file that does not parse; the rewrite gives it mode 0600, so no warning about it.
                _ = try context.configuration(warnAboutPermissions: false)
                try ClientConfiguration.write(key, value: normalized, home: context.home, environment: context.environment)
                if let variable = key.environmentVariable, let env = context.environment[variable], !env.isEmpty {
                    context.console.err("note: $\(variable) is set and overrides \(key.rawValue) from the file\n")
                }
            }
        }
    }

    /// `config unset KEY`: removes a setting from config.toml.
    struct Unset: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a setting from config.toml.")
        @ParentCommand var config: ConfigCommand
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The setting, e.g. server.token.") var key: String

        func run() throws {
            let context = CommandContext(homeOption: global.home ?? config.root.home)
            try context.reportingFailures {
                let key = try ConfigKey.named(key)
                _ = try context.configuration(warnAboutPermissions: false)  // rewritten with mode 0600 below
                try ClientConfiguration.write(key, value: nil, home: context.home, environment: context.environment)
            }
        }
    }

    @ParentCommand var root: RecipesCommand
}
