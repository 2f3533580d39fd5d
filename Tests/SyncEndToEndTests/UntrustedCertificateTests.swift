import Foundation
import RecipesTestSupport
import Testing

/// A server whose TLS certificate this device does not trust (a CA it lacks, or a captive portal answering for the
/// server): no recipe is parked as failed, the run stops with what to do, and the recipes stay to send.
@Suite("sync to https with a certificate this device does not trust: the run stops, no recipe failed")
struct UntrustedCertificateTests {
    @Test("recipes sync to an https server signed by a CA it lacks: exit 1 with what to do, run after run; every recipe still to send, no attempt counted")
    func untrustedCertificate() throws {
        let (https, _) = try HTTPSSite.started(in: Client().folder)
        let client = Client(serverURL: "https://127.0.0.1:\(https.port)")
        try client.createRecipes(2, imageSize: 1024)
        for run in 0..<3 {
            let sync = try client.run(run == 2 ? ["sync", "--background"] : ["sync", "--max-wait", "0"])
            #expect(sync.status == 1, "\(sync)")
            #expect((sync.stdout + sync.stderr).contains("the TLS certificate of 127.0.0.1:\(https.port) is not trusted here"), "\(sync)")
            #expect((sync.stdout + sync.stderr).contains("server.ca_bundle"), "\(sync)")
        }
        for entry in try client.status() {
            #expect(entry["state"] as? String == "pending", "\(entry)")
            #expect(entry["attempts"] as? Int == 0, "\(entry)")
        }
    }
}
