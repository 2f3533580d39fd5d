import Foundation
@testable import RecipeSync
import Testing
import Transport

@Suite("What a failure to reach the server means: the network (try later) or the set-up (fix server.url)")
struct DestinationDiagnosisTests {
    enum Meaning: Equatable { case offline, nothingListening, notARecipesServer, tlsToPlainHTTP, plainHTTPToTLS, untrustedCertificate, other }

    static func meaning(_ diagnosis: DestinationDiagnosis) -> Meaning {
        switch diagnosis {
        case .offline: .offline
        case .nothingListening: .nothingListening
        case .notARecipesServer: .notARecipesServer
        case .tlsToPlainHTTP: .tlsToPlainHTTP
        case .plainHTTPToTLS: .plainHTTPToTLS
        case .untrustedCertificate: .untrustedCertificate
        case .other: .other
        }
    }

    static let wrongVersion = "OpenSSL/3.0.19: error:0A00010B:SSL routines::wrong version number"

    @Test("each observation of http://127.0.0.1:8080 or https://r.example.org means one thing, a set-up mistake or not",
          arguments: [
            ("http://127.0.0.1:8080", .connect(.refused), Meaning.nothingListening),
            ("http://127.0.0.1:8080", .connect(.unreachable("No route to host")), .offline),
            ("http://127.0.0.1:8080", .connect(.timedOut), .offline),
            ("https://r.example.org", .connect(.unresolved), .offline),
            ("https://r.example.org", .transport(.dnsFailure, message: "Could not resolve host"), .offline),
            ("http://127.0.0.1:8080", .transport(.connectionRefused, message: "Connection refused"), .nothingListening),
            ("https://127.0.0.1:8080", .transport(.other, message: wrongVersion), .tlsToPlainHTTP),
            ("https://127.0.0.1:8080", .transport(.tls, message: wrongVersion), .tlsToPlainHTTP),
            ("http://127.0.0.1:8080", .transport(.other, message: wrongVersion), .other),
            // A CA this device lacks, or a captive portal answering for the server: no recipe parked, the run stops.
            ("https://r.example.org", .transport(.tls, message: "SSL certificate problem: unable to get local issuer"),
             .untrustedCertificate),
            ("https://r.example.org", .transport(.tls, message: "SSL: no alternative certificate subject name matches"),
             .untrustedCertificate),
            ("http://127.0.0.1:8443", .transport(.malformedAnswer, message: "Received HTTP/0.9 when not allowed"), .plainHTTPToTLS),
            ("http://127.0.0.1:8080", .transport(.timeout, message: "Operation timed out"), .other),
            ("http://127.0.0.1:8080", .transport(.connectionLost, message: "Recv failure: Connection reset by peer"), .other),
            ("http://127.0.0.1:8080/recipes", .answer(status: 404, request: .always, body: ""), .notARecipesServer),
            ("http://127.0.0.1:8080", .answer(status: 405, request: .always, body: "Method Not Allowed"), .notARecipesServer),
            ("http://127.0.0.1:8080", .answer(status: 501, request: .always, body: ""), .notARecipesServer),
            ("http://127.0.0.1:8080", .answer(status: 404, request: .mayBeMissing, body: ""), .other),
            ("http://127.0.0.1:8080", .answer(status: 503, request: .always, body: "busy"), .other),
            ("http://127.0.0.1:8080", .answer(status: 422, request: .always, body: "{}"), .other),
            ("http://127.0.0.1:8443", .answer(status: 400, request: .always,
                                             body: "The plain HTTP request was sent to HTTPS port"), .plainHTTPToTLS),
            ("https://127.0.0.1:8443", .answer(status: 400, request: .always, body: "https"), .other),
          ] as [(String, DestinationDiagnosis.Observation, Meaning)])
    func classify(url: String, observation: DestinationDiagnosis.Observation, meaning: Meaning) throws {
        let destination = try #require(DestinationDiagnosis.Destination(url: url))
        let diagnosis = DestinationDiagnosis.classify(observation, of: destination)
        #expect(Self.meaning(diagnosis) == meaning)
        let mistakes: [Meaning] = [.notARecipesServer, .tlsToPlainHTTP, .plainHTTPToTLS, .untrustedCertificate]
        #expect(diagnosis.isSetUpMistake == mistakes.contains(meaning))
        #expect((diagnosis.words == nil) == (meaning == .other))
    }

    @Test("the words say what to do: the port, the path, the scheme")
    func words() throws {
        func words(_ url: String, _ observation: DestinationDiagnosis.Observation) throws -> String {
            let destination = try #require(DestinationDiagnosis.Destination(url: url))
            return try #require(DestinationDiagnosis.classify(observation, of: destination).words)
        }
        #expect(try words("http://127.0.0.1:8081", .connect(.refused))
            == "nothing answers on 127.0.0.1:8081 (connection refused): is the server running, and is the port in server.url the one it listens on?")
        #expect(try words("http://kitchen.local:8080", .connect(.unreachable("No route to host")))
            == "cannot reach kitchen.local:8080: no route to the host (No route to host)")
        #expect(try words("https://127.0.0.1:8080", .transport(.other, message: Self.wrongVersion))
            == "127.0.0.1:8080 answers in plain HTTP, not TLS: server.url says https://; if the server speaks plain HTTP (recipes-server does), set server.url to http://127.0.0.1:8080")
        #expect(try words("http://127.0.0.1:8080/recipes", .answer(status: 404, request: .always, body: "")).hasSuffix(
            "check the path in server.url (recipes-server's own URL has none: http://127.0.0.1:8080)"))
        #expect(try words("http://10.0.0.5:8080/api/v1", .answer(status: 404, request: .always, body: "")).hasSuffix(
            "server.url is the server's base URL, without /v1 (recipes adds it): set it to http://10.0.0.5:8080/api"))
        #expect(try words("https://[::1]:8443", .connect(.refused)).hasPrefix("nothing answers on [::1]:8443"))
    }
}

@Suite("server.url is checked when it is set: scheme, host, port, no /v1")
struct ServerURLCheckTests {
    @Test("what is wrong with a server URL, in words; nil for one that works", arguments: [
        ("http://127.0.0.1:8080", nil), ("https://recipes.example.org", nil), ("https://r.example.org/recipes/", nil),
        ("http://[::1]:8080", nil), ("HTTP://Kitchen.local", nil),
        ("", "it is empty"), ("   ", "it is empty"),
        ("127.0.0.1:8080", "it has no scheme: write http:// or https:// in front (http://127.0.0.1:8080)"),
        ("ftp://files.example.org", "it must start with http:// or https://, not ftp://"),
        ("http://127.0.0.1:", "it ends its host with \":\" but gives no port; give the port (http://127.0.0.1:8080) or leave the \":\" out for the default port (80)"),
        ("https://[::1]:", "it ends its host with \":\" but gives no port; give the port (https://[::1]:8080) or leave the \":\" out for the default port (443)"),
        ("http://127.0.0.1:99999", "its port 99999 is not from 1 to 65535"),
        ("http://127.0.0.1:0", "its port 0 is not from 1 to 65535"),
        ("http://127.0.0.1:80a", "its port \"80a\" is not a number from 1 to 65535"),
        ("http://me:secret@r.example.org", "it holds a user name or password; keep the token in server.token instead"),
        ("http://r.example.org/?x=1", "it holds a query (?…) or a fragment (#…)"),
        ("http:///nohost", "it has no host name: write it as http://HOST or http://HOST:PORT"),
        ("http://127.0.0.1:8080/v1", "it holds /v1, which recipes adds to the base URL itself: set the server's base URL, http://127.0.0.1:8080"),
        ("http://127.0.0.1:8080/v1/", "it holds /v1, which recipes adds to the base URL itself: set the server's base URL, http://127.0.0.1:8080"),
        ("https://r.example.org/api/v1/recipes", "it holds /v1, which recipes adds to the base URL itself: set the server's base URL, https://r.example.org/api"),
    ] as [(String, String?)])
    func problems(url: String, problem: String?) {
        #expect(ServerAPI.problem(with: url) == problem)
        #expect((ServerAPI(baseURL: url) == nil) == (problem != nil))
    }
}
