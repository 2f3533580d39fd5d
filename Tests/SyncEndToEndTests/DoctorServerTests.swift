import Foundation
import Testing

/// `recipes doctor` with a server set: the built binaries against a real `recipes-server`, as a member whose token
/// was rotated or removed meets it (issue: a server a household can run).
@Suite("recipes doctor asks the server whether it takes this device's token")
struct DoctorServerTests {
    @Test("the right token: exit 0 and `took this device's token`; a refused one: exit 77, what to do, no token shown")
    func tokenAcceptedOrRefused() throws {
        let right = "srvRightTok-3hQ8vN"
        let wrong = "cliStaleTok-6Lp2Wd"
        let client = Client()
        let server = try client.startServer(token: right)
        defer { server.stop() }

        client.token = right
        let fine = try client.run(["doctor"])
        #expect(fine.status == 0, "\(fine)")
        #expect(fine.stdout.hasPrefix(client.homePath + "/recipes.sqlite3 does not exist yet"), "the database is still checked first: \(fine)")
        #expect(fine.stdout.contains("server \(server.url): answers, and took this device's token (server "), "\(fine)")

        client.token = wrong
        let refused = try client.run(["doctor"])
        #expect(refused.status == 77, "\(refused)")
        #expect(refused.stdout.contains("server \(server.url): the server refused the credentials (HTTP 401)"), "\(refused)")
        #expect(refused.stdout.contains("rotated or removed"), "the advice names why a token stops working: \(refused)")
        #expect(refused.stdout.contains("`recipes config set server.token -`"), "\(refused)")
        for secret in [right, wrong] {
            #expect(!refused.stdout.contains(secret) && !refused.stderr.contains(secret), "a token was printed: \(refused)")
        }

        client.token = nil
        let none = try client.run(["doctor"])
        #expect(none.status == 77, "\(none)")
        #expect(none.stdout.contains("the server needs a token and server.token is not set"), "\(none)")
    }

    @Test("a server that cannot be reached: exit 75 and a later sync tries again; no server set: the database alone")
    func unreachableAndNoServer() throws {
        let client = Client()
        let alone = try client.run(["doctor"])
        #expect(alone.status == 0, "\(alone)")
        #expect(!alone.stdout.contains("server "), "no server set: no server line: \(alone)")

        // A port nothing listens on: a server started and stopped leaves its port closed.
        let server = try client.startServer()
        server.stop()
        let down = try client.run(["doctor"])
        #expect(down.status == 75, "\(down)")
        #expect(down.stdout.contains("server \(server.url): cannot be reached now"), "\(down)")
        #expect(down.stdout.contains("a later sync tries again"), "\(down)")
    }
}
