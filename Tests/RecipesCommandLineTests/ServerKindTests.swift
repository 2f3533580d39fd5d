import Foundation
import RecipesTestSupport
import Testing
@testable import RecipesCommandLine
#if canImport(Glibc)
import Glibc
#endif

@Suite("server.kind: the destination kind, shown by config show and status")
struct ServerKindTests {
    @Test("config show says http by default, the file's kind once set, and the environment's when RECIPES_SERVER_KIND is set")
    func shown() throws {
        let dir = TemporaryDirectory()
        let home = ["--home", dir.homePath]
        #expect(try runRecipes(["config", "show"] + home).stdout.contains("server.kind = \"http\"  # default\n"))
        let set = try runRecipes(["config", "set", "server.kind", " Mealie "] + home)
        #expect(set.status == 0 && set.stderr.isEmpty, "\(set)")
        #expect(try runRecipes(["config", "get", "server.kind"] + home).stdout == "mealie\n")
        #expect(try runRecipes(["config", "show"] + home).stdout.contains("server.kind = \"mealie\"\n"))
        let overridden = try runRecipes(["config", "show"] + home, environment: ["RECIPES_SERVER_KIND": "http"])
        #expect(overridden.stdout.contains("server.kind = \"http\"  # from $RECIPES_SERVER_KIND\n"), "\(overridden)")
    }

    @Test("A kind that is none is refused in one message listing the kinds, and the file keeps its value")
    func wrongKindRefused() throws {
        let dir = TemporaryDirectory()
        let home = ["--home", dir.homePath]
        #expect(try runRecipes(["config", "set", "server.kind", "mealie"] + home).status == 0)
        let run = try runRecipes(["config", "set", "server.kind", "tandoor"] + home)
        #expect(run.status == 1, "\(run)")
        #expect(run.stderr == "recipes: server.kind \"tandoor\" is not a kind of server; the kinds are: http (a recipes server of the "
            + "HTTP contract, the default), mealie (a Mealie 2.x server, with a Mealie API token); set it with "
            + "`recipes config set server.kind KIND` (or RECIPES_SERVER_KIND)\n", "\(run)")
        #expect(try runRecipes(["config", "get", "server.kind"] + home).stdout == "mealie\n")
        let fromEnvironment = try runRecipes(["sync"] + home, environment: ["RECIPES_SERVER_KIND": "tandoor"])
        #expect(fromEnvironment.status == 1 && fromEnvironment.stderr.contains("server.kind \"tandoor\" is not a kind of server"),
                "\(fromEnvironment)")
    }

    @Test("status and the REPL's status name the kind mealie and its URL; setting the kind sends nothing")
    func statusNamesMealie() throws {
        let dir = TemporaryDirectory()
        let home = ["--home", dir.homePath]
        let listener = try Listener()
        defer { listener.close() }
        let url = "http://127.0.0.1:\(listener.port)"
        #expect(try runRecipes(["config", "set", "server.url", url] + home).status == 0)
        #expect(try runRecipes(["edit"] + home, input: "new Tomato soup\n").status == 0)
        #expect(try runRecipes(["status"] + home).stdout.contains("destination: http server, \(url)\n"))
        #expect(try runRecipes(["config", "set", "server.kind", "mealie"] + home).status == 0)
        let status = try runRecipes(["status"] + home)
        #expect(status.stdout.contains("destination: mealie server, \(url)\n"), "\(status)")
        #expect(status.stdout.contains("Tomato soup"))
        let repl = try runRecipes(["edit"] + home, input: "status\n")
        #expect(repl.stdout.contains("destination: mealie server, \(url)\n"), "\(repl)")
        #expect(listener.connectionsWaiting == 0, "a connection reached server.url")
    }

    /// A TCP socket listening on 127.0.0.1 that nobody accepts from: whether a connection reached it.
    final class Listener {
        let descriptor: Int32
        let port: UInt16

        init() throws {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                    bind(descriptor, pointer, length) == 0 && listen(descriptor, 16) == 0
                        && getsockname(descriptor, pointer, &length) == 0
                }
            }
            guard descriptor >= 0, bound else { throw POSIXError(.EADDRNOTAVAIL) }
            self.descriptor = descriptor
            port = UInt16(bigEndian: address.sin_port)
        }

        /// How many connections wait to be accepted (each accepted here and closed).
        var connectionsWaiting: Int {
            var count = 0
            while case let client = accept(descriptor, nil, nil), client >= 0 {
                Glibc.close(client)
                count += 1
            }
            return count
        }

        func close() { Glibc.close(descriptor) }
    }
}
