import Foundation
import HTTPTestSupport
import Testing
import Transport

@Suite("HTTPClient failures: each becomes a TransportError that classification understands")
struct HTTPClientFailureTests {
    private func outcome(_ client: HTTPClient, _ request: HTTPRequest) async -> (TransferOutcome, TransportError?) {
        do {
            let response = try await client.send(request)
            return (TransferOutcome.classify(.success(response), now: Date()), nil)
        } catch {
            return (TransferOutcome.classify(.failure(error), now: Date()), error)
        }
    }

    @Test("A refused connection is connectionRefused and transient (unreachable is only the probe's verdict)")
    func refused() async throws {
        let port = try TestSupport.closedPort()
        let client = try TestSupport.client()
        let (outcome, error) = await outcome(client, HTTPRequest(method: .get, url: "http://127.0.0.1:\(port)/v1/health"))
        let failure = try #require(error)
        #expect(failure.kind == .connectionRefused)
        guard case .transient(_, nil) = outcome else { Issue.record("not transient: \(outcome)"); return }
    }

    @Test("The token never appears in a failure's message, even where libcurl quotes the URL or host",
          arguments: ["http://127.0.0.1:PORT/v1/images/tok-xyz-secret", "http://tok-xyz-secret.invalid/v1/health"])
    func tokenNeverInFailureMessages(template: String) async throws {
        let token = "tok-xyz-secret"
        let port = try TestSupport.closedPort()
        let url = template.replacingOccurrences(of: "PORT", with: String(port))
        let client = try TestSupport.client(token: token, tokenOrigin: url)
        let request = HTTPRequest(method: .get, url: url)
        let (outcome, error) = await outcome(client, request)
        let failure = try #require(error)
        let texts = [failure.message, failure.errorDescription ?? "", "\(failure)", String(reflecting: failure), "\(outcome)"]
        for text in texts { #expect(!text.contains(token), "leaked: \(text)") }
        #expect(failure.message.contains("<token>"), "the quoted URL or host is still named, without the token")
    }

    @Test("A server error body that echoes the token is redacted when classified with it")
    func echoedTokenRedacted() async throws {
        let token = "tok-echo-77"
        let server = try LoopbackHTTPServer { head in
            .respond(status: 401, headers: ["Content-Type": "application/json"],
                     body: Data(#"{"error":"unauthorized","message":"\#(head.headers["authorization"] ?? "") is not valid"}"#.utf8))
        }
        defer { server.stop() }
        let client = try TestSupport.client(token: token, tokenOrigin: server.baseURL)
        let response = try await client.send(HTTPRequest(method: .get, url: server.baseURL + "/v1/health"))
        #expect(String(decoding: response.body, as: UTF8.self).contains(token)) // the server really echoed it
        #expect(TransferOutcome.classify(.success(response), now: Date(), redacting: token)
                == .badCredentials(status: 401, message: "HTTP 401: Bearer <token> is not valid"))
    }

    @Test("An answer larger than the in-memory limit fails as responseTooLarge, permanent")
    func oversizedAnswer() async throws {
        let server = try LoopbackHTTPServer { _ in .respond(status: 200, body: Data(count: (16 << 20) + 1)) }
        defer { server.stop() }
        let client = try TestSupport.client()
        let (outcome, error) = await outcome(client, HTTPRequest(method: .get, url: server.baseURL + "/v1/recipes"))
        #expect(error?.kind == .responseTooLarge)
        guard case .permanent(nil, _) = outcome else { Issue.record("not permanent: \(outcome)"); return }
        let fits = try LoopbackHTTPServer { _ in .respond(status: 200, body: Data(count: 16 << 20)) }
        defer { fits.stop() }
        #expect(try await client.send(HTTPRequest(method: .get, url: fits.baseURL + "/v1/recipes")).body.count == 16 << 20)
    }

    @Test("A connection reset in the middle of an upload is connectionLost and transient")
    func resetMidBody() async throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = try TestSupport.makeFile(size: 4 << 20, in: directory)
        let server = try LoopbackHTTPServer { _ in .resetAfterBody(bytes: 64 * 1024) }
        defer { server.stop() }
        let client = try TestSupport.client()
        let (outcome, error) = await outcome(client, HTTPRequest(method: .put, url: server.baseURL + "/v1/images/x",
                                                                 body: .file(path: file.path, contentType: "image/jpeg")))
        #expect(error?.kind == .connectionLost)
        guard case .transient(_, nil) = outcome else { Issue.record("not transient: \(outcome)"); return }
    }

    @Test("A server that stops answering is noticed by the low-speed limit: timeout, transient")
    func lowSpeedLimit() async throws {
        let server = try LoopbackHTTPServer { _ in .stallAfterBody }
        defer { server.stop() }
        let client = try TestSupport.client(lowSpeedTime: .seconds(1))
        let (outcome, error) = await outcome(client, HTTPRequest(method: .get, url: server.baseURL + "/v1/health"))
        #expect(error?.kind == .timeout)
        guard case .transient = outcome else { Issue.record("not transient: \(outcome)"); return }
    }

    @Test("A missing file is refused before connecting: fileUnreadable, permanent")
    func missingFile() async throws {
        let server = try LoopbackHTTPServer(status: 200)
        defer { server.stop() }
        let client = try TestSupport.client()
        let (outcome, error) = await outcome(client, HTTPRequest(method: .put, url: server.baseURL + "/v1/images/x",
                                                                 body: .file(path: "/nonexistent/img.jpg", contentType: "image/jpeg")))
        #expect(error?.kind == .fileUnreadable)
        #expect(error?.message.contains("/nonexistent/img.jpg") == true)
        #expect(outcome == .permanent(status: nil, message: error?.message ?? ""))
        #expect(server.connectionCount == 0)
    }

    @Test("A directory cannot be uploaded as a file")
    func directoryIsNotAFile() async throws {
        let client = try TestSupport.client()
        let error = await #expect(throws: TransportError.self) {
            _ = try await client.send(HTTPRequest(method: .put, url: "http://127.0.0.1:9/x", body: .file(path: "/tmp", contentType: "image/png")))
        }
        #expect(error?.kind == .fileUnreadable)
    }

    @Test("A body file that is a symbolic link is not read through it: refused before connecting")
    func symbolicLinkIsNotFollowed() async throws {
        let directory = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let target = try TestSupport.makeFile(size: 64, in: directory)
        let link = directory.appendingPathComponent("planted.png").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target.path)
        let server = try LoopbackHTTPServer(status: 200)
        defer { server.stop() }
        let client = try TestSupport.client()
        let error = await #expect(throws: TransportError.self) {
            _ = try await client.send(HTTPRequest(method: .put, url: server.baseURL + "/x", body: .file(path: link, contentType: "image/png")))
        }
        #expect(error?.kind == .fileUnreadable)
        #expect(error?.message.contains("symbolic link") == true)
        #expect(server.connectionCount == 0)
    }

    @Test("Only http and https URLs are accepted", arguments: ["file:///etc/passwd", "ftp://127.0.0.1/x", "not a url"])
    func invalidScheme(url: String) async throws {
        let client = try TestSupport.client()
        let error = await #expect(throws: TransportError.self) {
            _ = try await client.send(HTTPRequest(method: .get, url: url))
        }
        #expect(error?.kind == .invalidRequest)
    }

    @Test("An unresolvable host name is a DNS failure, transient")
    func dnsFailure() async throws {
        let client = try TestSupport.client()
        let (outcome, error) = await outcome(client, HTTPRequest(method: .get, url: "http://no-such-host.invalid/v1/health"))
        #expect(error?.kind == .dnsFailure)
        guard case .transient = outcome else { Issue.record("not transient: \(outcome)"); return }
    }

    @Test("An unreadable CA bundle makes the client refuse to start, naming the file")
    func unreadableBundle() {
        let error = #expect(throws: TransportError.self) {
            _ = try HTTPClient(configuration: HTTPClientConfiguration(caBundlePath: "/nonexistent/ca.pem"))
        }
        #expect(error?.kind == .setupFailed)
        #expect(error?.errorDescription == "cannot read the CA bundle /nonexistent/ca.pem")
    }
}
