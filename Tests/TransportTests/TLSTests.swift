import Foundation
import Testing
import Transport

/// An HTTPS endpoint (Fixtures/https_server.py) serving a certificate from a CA made by openssl for this test.
private final class HTTPSEndpoint {
    let directory: URL
    let port: Int
    private let process: Process
    private let input: Pipe

    /// Makes a test CA in a temp dir and serves `certificate` ("server": 127.0.0.1/localhost, "other": another name).
    init(certificate: String = "server") throws {
        directory = try TestSupport.temporaryDirectory()
        let generate = Process()
        generate.executableURL = URL(fileURLWithPath: "/bin/sh")
        generate.arguments = [TestSupport.fixtures.appendingPathComponent("make_test_ca.sh").path, directory.path]
        try generate.run()
        generate.waitUntilExit()
        guard generate.terminationStatus == 0 else { throw CocoaError(.fileWriteUnknown) }

        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", TestSupport.fixtures.appendingPathComponent("https_server.py").path,
                             directory.appendingPathComponent("\(certificate).pem").path,
                             directory.appendingPathComponent("\(certificate).key").path]
        input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        var line = Data()
        while let byte = try output.fileHandleForReading.read(upToCount: 1), let first = byte.first, first != UInt8(ascii: "\n") {
            line.append(first)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self)) else { throw CocoaError(.fileReadCorruptFile) }
        self.port = port
    }

    var caPath: String { directory.appendingPathComponent("ca.pem").path }

    deinit {
        try? input.fileHandleForWriting.close() // the script exits when its stdin closes
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }
}

@Suite("TLS: peers and host names are verified; RECIPES_CA_BUNDLE adds a CA")
struct TLSTests {
    @Test("With the test CA added, the HTTPS endpoint is accepted")
    func acceptedWithBundle() async throws {
        let endpoint = try HTTPSEndpoint()
        let client = try TestSupport.client(caBundlePath: endpoint.caPath)
        let response = try await client.send(HTTPRequest(method: .get, url: "https://127.0.0.1:\(endpoint.port)/v1/health"))
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == "secure")
        // The system store is still there: the same client also verifies with localhost as the name.
        let byName = try await client.send(HTTPRequest(method: .get, url: "https://localhost:\(endpoint.port)/"))
        #expect(byName.status == 200)
    }

    @Test("Without the test CA, the certificate is refused: a permanent TLS error")
    func refusedWithoutBundle() async throws {
        let endpoint = try HTTPSEndpoint()
        let client = try TestSupport.client()
        let error = await #expect(throws: TransportError.self) {
            _ = try await client.send(HTTPRequest(method: .get, url: "https://127.0.0.1:\(endpoint.port)/"))
        }
        #expect(error?.kind == .tls)
        if let error {
            #expect(TransferOutcome.classify(.failure(error), now: Date()) == .permanent(status: nil, message: error.message))
        }
    }

    @Test("A certificate from the trusted CA but for another host name is refused")
    func hostNameVerified() async throws {
        let endpoint = try HTTPSEndpoint(certificate: "other")
        let client = try TestSupport.client(caBundlePath: endpoint.caPath)
        let error = await #expect(throws: TransportError.self) {
            _ = try await client.send(HTTPRequest(method: .get, url: "https://127.0.0.1:\(endpoint.port)/"))
        }
        #expect(error?.kind == .tls)
    }
}
