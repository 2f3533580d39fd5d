import Foundation
import Testing
@testable import Transport

@Suite("Client settings: the CA store is never silently narrowed, the token never printed")
struct ClientSettingsTests {
    private func writeExtraCA() throws -> (directory: URL, path: String) {
        let directory = try TestSupport.temporaryDirectory()
        let path = directory.appendingPathComponent("extra.pem").path
        let pem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
        try Data(pem.utf8).write(to: URL(fileURLWithPath: path))
        return (directory, path)
    }

    @Test("An extra CA with an unreadable system bundle is refused, naming the system bundle's path")
    func unreadableSystemBundle() throws {
        let (directory, extra) = try writeExtraCA()
        defer { try? FileManager.default.removeItem(at: directory) }
        let missing = directory.appendingPathComponent("no-system-bundle.crt").path
        let error = #expect(throws: TransportError.self) {
            _ = try ClientSettings(HTTPClientConfiguration(caBundlePath: extra), systemBundlePath: missing)
        }
        #expect(error?.kind == .setupFailed)
        #expect(error?.message.contains(missing) == true)
    }

    @Test("An extra CA is appended to a readable system bundle")
    func extraAddedToSystemBundle() throws {
        let (directory, extra) = try writeExtraCA()
        defer { try? FileManager.default.removeItem(at: directory) }
        let system = directory.appendingPathComponent("system.crt").path
        try Data("SYSTEM\n".utf8).write(to: URL(fileURLWithPath: system))
        let settings = try ClientSettings(HTTPClientConfiguration(caBundlePath: extra), systemBundlePath: system)
        let bundle = String(decoding: settings.caBundle ?? [], as: UTF8.self)
        #expect(bundle.hasPrefix("SYSTEM\n"))
        #expect(bundle.hasSuffix("-----END CERTIFICATE-----\n"))
    }

    @Test("Printing, debug-printing or dumping a configuration, its settings or a client never shows the token")
    func tokenNeverPrinted() throws {
        let token = "tok-print-5150"
        let configuration = HTTPClientConfiguration(userAgent: "recipes/test", credentials: .of(token, at: "https://recipes.example.org"))
        let settings = try ClientSettings(configuration, systemBundlePath: nil)
        let client = try HTTPClient(configuration: configuration)
        var dumps: [String] = []
        for value in [configuration, settings, client] as [Any] {
            var dumped = ""
            dump(value, to: &dumped)
            dumps += ["\(value)", String(reflecting: value), String(describing: Mirror(reflecting: value).children.map(\.value)), dumped]
        }
        for text in dumps { #expect(!text.contains(token), "leaked: \(text)") }
        #expect("\(configuration)".contains("bearerToken: <redacted>"))
        #expect("\(configuration)".contains("recipes/test"))
    }
}
