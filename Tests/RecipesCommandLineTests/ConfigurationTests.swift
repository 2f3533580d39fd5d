import Foundation
import RecipesTestSupport
import Testing
@testable import RecipeStore
@testable import RecipesCommandLine

@Suite("config.toml: written 0600, environment wins, tokens never shown")
struct ConfigurationTests {
    @Test("the file lives in the explicit home, else under XDG_CONFIG_HOME or ~/.config")
    func fileLocation() {
        let explicit = RecipesHome(url: URL(fileURLWithPath: "/h"), isExplicit: true)
        #expect(ClientConfiguration.fileURL(home: explicit, environment: [:]).path == "/h/config.toml")
        let implicit = RecipesHome.resolve(option: nil, environment: ["HOME": "/home/u"])
        #expect(implicit.url.path == "/home/u/.local/share/recipes")
        #expect(ClientConfiguration.fileURL(home: implicit, environment: ["HOME": "/home/u"]).path
            == "/home/u/.config/recipes/config.toml")
        #expect(ClientConfiguration.fileURL(home: implicit, environment: ["XDG_CONFIG_HOME": "/x"]).path
            == "/x/recipes/config.toml")
        #expect(RecipesHome.resolve(option: nil, environment: ["XDG_DATA_HOME": "/d"]).url.path == "/d/recipes")
        #expect(RecipesHome.resolve(option: nil, environment: ["RECIPES_HOME": "/r"]).url.path == "/r")
        #expect(RecipesHome.resolve(option: "/o", environment: ["RECIPES_HOME": "/r"]).url.path == "/o")
    }

    @Test("set writes a 0600 file that load reads back, keeping other keys; unset removes one")
    func roundTrip() throws {
        let dir = TemporaryDirectory()
        let home = dir.home
        try ClientConfiguration.write(.serverURL, value: "https://r.example.org", home: home, environment: [:])
        try ClientConfiguration.write(.syncJobs, value: "8", home: home, environment: [:])
        try ClientConfiguration.write(.serverToken, value: "s3cret", home: home, environment: [:])
        let url = ClientConfiguration.fileURL(home: home, environment: [:])
        let mode = try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        var config = try ClientConfiguration.load(home: home, environment: [:])
        #expect(config.serverURL == "https://r.example.org")
        #expect(config.jobs == 8)
        #expect(config.token == "s3cret")
        try ClientConfiguration.write(.serverToken, value: nil, home: home, environment: [:])
        config = try ClientConfiguration.load(home: home, environment: [:])
        #expect(config.token == nil)
        #expect(config.serverURL == "https://r.example.org")
    }

    @Test("environment variables beat the file")
    func environmentWins() throws {
        let dir = TemporaryDirectory()
        try ClientConfiguration.write(.serverURL, value: "https://file.example", home: dir.home, environment: [:])
        let config = try ClientConfiguration.load(
            home: dir.home, environment: ["RECIPES_SERVER_URL": "http://127.0.0.1:9", "RECIPES_TOKEN": "t"])
        #expect(config.value(.serverURL)?.value == "http://127.0.0.1:9")
        #expect(config.value(.serverURL)?.source == .environment("RECIPES_SERVER_URL"))
        #expect(config.token == "t")
        #expect(config.value(.syncJobs)?.source == .defaultValue)
    }

    @Test("values are validated", arguments: [
        (ConfigKey.serverURL, "ftp://x"), (.serverURL, "not a url"), (.serverURL, "https://user:pw@host"),
        (.syncJobs, "0"), (.syncJobs, "65"), (.syncJobs, "four"), (.imageMaxBytes, "-1"), (.serverToken, "a b"),
        (.serverCABundle, "relative.pem"),
    ])
    func validation(key: ConfigKey, value: String) {
        #expect(throws: CommandLineError.self) { try key.validate(value) }
    }

    @Test("sync.max_connections takes a whole number from 1 to 64", arguments: [
        ("1", "1"), ("16", "16"), ("64", "64"), (" 6\n", "6"),
    ])
    func maxConnectionsAccepted(value: String, normalized: String) throws {
        #expect(try ConfigKey.syncMaxConnections.validate(value) == normalized)
    }

    @Test("sync.max_connections refuses anything else with one line saying what it takes",
          arguments: ["0", "65", "-1", "x", "1.5", ""])
    func maxConnectionsRefused(value: String) {
        #expect {
            try ConfigKey.syncMaxConnections.validate(value)
        } throws: { error in
            (error as? CommandLineError)?.message == "sync.max_connections must be a whole number from 1 to 64"
        }
    }

    @Test("sync.max_connections is 16 by default, read back from the file as set, and 16 again once unset")
    func maxConnectionsRoundTrip() throws {
        let dir = TemporaryDirectory()
        var config = try ClientConfiguration.load(home: dir.home, environment: [:])
        #expect(config.maxConnections == 16)
        #expect(config.value(.syncMaxConnections)?.source == .defaultValue)
        try ClientConfiguration.write(.syncMaxConnections, value: "6", home: dir.home, environment: [:])
        let text = try String(contentsOf: ClientConfiguration.fileURL(home: dir.home, environment: [:]), encoding: .utf8)
        #expect(text.contains("max_connections = 6"))
        config = try ClientConfiguration.load(home: dir.home, environment: [:])
        #expect(config.maxConnections == 6)
        #expect(config.value(.syncMaxConnections)?.source == .file)
        try ClientConfiguration.write(.syncMaxConnections, value: nil, home: dir.home, environment: [:])
        config = try ClientConfiguration.load(home: dir.home, environment: [:])
        #expect(config.maxConnections == 16)
    }

    @Test("a malformed file is an error naming the file and line")
    func malformedFile() throws {
        let dir = TemporaryDirectory()
        try dir.home.createDirectories()
        let url = ClientConfiguration.fileURL(home: dir.home, environment: [:])
        try "[server]\nurl = \n".write(to: url, atomically: true, encoding: .utf8)
        #expect {
            try ClientConfiguration.load(home: dir.home, environment: [:])
        } throws: { error in
            (error as? CommandLineError)?.message.hasPrefix(url.path + ":2:") == true
        }
        try "[sync]\njobs = \"many\"\n".write(to: url, atomically: true, encoding: .utf8)
        #expect {
            try ClientConfiguration.load(home: dir.home, environment: [:])
        } throws: { error in
            (error as? CommandLineError)?.message.contains("sync.jobs must be a whole number") == true
        }
        try "[sync]\nmax_connections = 65\n".write(to: url, atomically: true, encoding: .utf8)
        #expect {
            try ClientConfiguration.load(home: dir.home, environment: [:])
        } throws: { error in
            (error as? CommandLineError)?.message
                == "\(url.path): sync.max_connections must be a whole number from 1 to 64"
        }
    }
}

@Suite("JSON output is valid JSON with strings escaped")
struct JSONWriterTests {
    @Test("quotes, backslashes, newlines and control characters round-trip through a JSON parser")
    func escaping() throws {
        let tricky = "a \"quoted\" \\ back\nslash\t\u{1}é漢"
        var writer = JSONWriter()
        writer.array([tricky, "plain"]) { writer, text in
            writer.object(["text": .string(text), "n": .integer(7), "none": .string(nil), "raw": .raw("[1]")])
        }
        let parsed = try #require(
            JSONSerialization.jsonObject(with: Data(writer.text.utf8)) as? [[String: Any]])
        try #require(parsed.count == 2)
        #expect(parsed[0]["text"] as? String == tricky)
        #expect(parsed[0]["n"] as? Int == 7)
        #expect(parsed[0]["none"] is NSNull)
        #expect(parsed[0]["raw"] as? [Int] == [1])
        #expect(parsed[1]["text"] as? String == "plain")
        #expect(writer.text.hasPrefix(#"[{"text":"a \"quoted\" \\ back\nslash\t\u0001"#))
    }
}
