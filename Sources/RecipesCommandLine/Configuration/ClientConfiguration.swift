import Foundation
import RecipeStore
import SystemFiles
import TOMLKit
#if canImport(Glibc)
import Glibc
#endif

/// The client's settings: `config.toml` overlaid by the environment, which wins.
public struct ClientConfiguration: Sendable {
    /// Where a value came from.
    public enum Source: Sendable, Equatable {
        case file
        case environment(String)
        case defaultValue
    }

    /// The config file this configuration was read from (it may not exist yet).
    public var fileURL: URL
    /// The values set in the file, by key.
    public var fileValues: [ConfigKey: String]
    /// The environment the overrides were read from.
    var environment: [String: String]
    /// The permission bits of the config file as it was read, or nil when there was none.
    var filePermissions: mode_t?

    /// The effective value of `key` and where it came from, or nil when unset.
    public func value(_ key: ConfigKey) -> (value: String, source: Source)? {
        if let variable = key.environmentVariable, let value = environment[variable], !value.isEmpty {
            return (value, .environment(variable))
        }
        if let value = fileValues[key] { return (value, .file) }
        if let value = key.defaultValue { return (value, .defaultValue) }
        return nil
    }

    /// The configured upload concurrency.
    public var jobs: Int { value(.syncJobs).flatMap { Int($0.value) } ?? 4 }
    /// The most connections a sync opens on a long round trip (`SyncOptions.maxConnections`).
    public var maxConnections: Int { value(.syncMaxConnections).flatMap { Int($0.value) } ?? 16 }
    /// The largest image `image set` accepts.
    public var imageMaxBytes: Int64 { value(.imageMaxBytes).flatMap { Int64($0.value) } ?? MediaLibrary.defaultMaxBytes }
    /// The kind of server `server.url` names; a value of `RECIPES_SERVER_KIND` that is no kind is refused here (the
    /// file's is checked when it is read).
    public func serverKind() throws(CommandLineError) -> ServerKind {
        try ServerKind.named(value(.serverKind)?.value ?? ServerKind.http.rawValue)
    }
    /// The server's base URL, when configured.
    public var serverURL: String? { value(.serverURL)?.value }
    /// The bearer token, when configured.
    public var token: String? { value(.serverToken)?.value }
    /// The extra CA bundle, when configured.
    public var caBundle: String? { value(.serverCABundle)?.value }

    /// The warning due when the file holds `server.token` and its permissions give the group or others any access
    /// (as ssh warns about a private key), or nil. `config set` and `unset` rewrite the file with mode 0600.
    public var exposedTokenWarning: String? {
        guard fileValues[.serverToken] != nil, let mode = filePermissions, mode & 0o077 != 0 else { return nil }
        let octal = String(mode & 0o7777, radix: 8)
        let permissions = String(repeating: "0", count: max(0, 4 - octal.count)) + octal
        return "warning: permissions \(permissions) for \(fileURL.path) are too open for a file that holds server.token; "
            + "run `chmod 600 \(fileURL.path)`"
    }

    /// The config file's location: `<home>/config.toml` for an explicit home, else under `$XDG_CONFIG_HOME`.
    public static func fileURL(home: RecipesHome, environment: [String: String]) -> URL {
        if home.isExplicit { return home.url.appendingPathComponent("config.toml") }
        let base: String
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") {
            base = xdg
        } else {
            base = (environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()) + "/.config"
        }
        return URL(fileURLWithPath: base).appendingPathComponent("recipes/config.toml")
    }

    /// Loads the configuration of `home`; a missing file is an empty one, a malformed one an error naming the line.
    public static func load(home: RecipesHome, environment: [String: String]) throws(CommandLineError) -> ClientConfiguration {
        let url = fileURL(home: home, environment: environment)
        let (table, permissions) = try readTable(url)
        var values: [ConfigKey: String] = [:]
        for key in ConfigKey.allCases {
            let (tableName, name) = key.path
            guard let section = table[tableName] else { continue }
            guard let subtable = section.table else {
                throw CommandLineError("\(url.path): [\(tableName)] must be a table; fix or remove it")
            }
            guard let raw = subtable[name] else { continue }
            let text: String?
            if key.isInteger { text = raw.int.map(String.init) } else { text = raw.string }
            guard let text else {
                let expected = key.isInteger ? "a whole number" : "a string"
                throw CommandLineError("\(url.path): \(key.rawValue) must be \(expected); fix it or run `recipes config set \(key.rawValue) VALUE`")
            }
            do {
                values[key] = try key.validate(text)
            } catch {
                throw CommandLineError("\(url.path): \(error.message)")
            }
        }
        return ClientConfiguration(
            fileURL: url, fileValues: values, environment: environment, filePermissions: permissions)
    }

    /// Sets (or with nil removes) `key` in the config file, keeping its other keys; written atomically, mode 0600.
    public static func write(_ key: ConfigKey, value: String?, home: RecipesHome, environment: [String: String]) throws(CommandLineError) {
        let url = fileURL(home: home, environment: environment)
        let table = try readTable(url).table
        let (tableName, name) = key.path
        let section: TOMLTable
        if let existing = table[tableName]?.table {
            section = existing
        } else {
            section = TOMLTable()
        }
        if let value {
            if key.isInteger, let number = Int(value) { section[name] = number } else { section[name] = value }
        } else {
            section.remove(at: name)
        }
        if section.isEmpty { table.remove(at: tableName) } else { table[tableName] = section }
        let text = table.convert(to: .toml) + "\n"
        try writeAtomically(text, to: url)
    }

    /// The table in the file at `url` (empty when there is none) and the file's permission bits, from the one `stat`
    /// that also says whether it exists.
    static func readTable(_ url: URL) throws(CommandLineError) -> (table: TOMLTable, permissions: mode_t?) {
        var info = stat()
        guard stat(url.path, &info) == 0 else { return (TOMLTable(), nil) }
        let text: String
        do {
            text = try String(contentsOf: url, encoding: .utf8)
        } catch {
            throw CommandLineError("cannot read \(url.path): it is unreadable or not UTF-8 text; fix its permissions or contents")
        }
        do {
            return (try TOMLTable(string: text), info.st_mode & 0o7777)
        } catch let error as TOMLParseError {
            throw CommandLineError(
                "\(url.path):\(error.source.begin.line):\(error.source.begin.column): \(error.description); fix the file or remove it")
        } catch {
            throw CommandLineError("\(url.path) is not valid TOML; fix the file or remove it")
        }
    }

    /// Writes `text` to a temporary file created with mode 0600 beside `url` (named for this process), then renames it
    /// over `url`; the file and the folder are flushed to disk.
    static func writeAtomically(_ text: String, to url: URL) throws(CommandLineError) {
        let directory = url.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw CommandLineError("cannot create \(directory.path); check its permissions")
        }
        let temporary = directory.appendingPathComponent(".config.toml.\(getpid()).tmp").path
        unlink(temporary)  // left by an earlier process that had this process's id and stopped mid-write
        let file: AtomicFile
        do throws(ErrnoError) {
            file = try AtomicFile(creating: temporary, permissions: 0o600)
        } catch {
            throw CommandLineError("cannot write \(temporary): \(error.reason); check permissions")
        }
        do throws(ErrnoError) {
            try file.write(Array(text.utf8))
            try file.commit(to: url.path, flushing: [.file, .folder])
        } catch {
            throw CommandLineError("cannot write \(url.path): \(error.reason); check free space and permissions")
        }
    }
}
