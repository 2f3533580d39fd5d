import Foundation
import HTTPTestSupport
import Locking
import RecipesTestSupport
import Testing

/// The big sites' pages in Tests/Fixtures/pages, their images on `imageBase`.
private func sitePage(_ name: String, imageBase: String) throws -> Data {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/pages/\(name)")
    return Data(try String(contentsOf: url, encoding: .utf8).replacingOccurrences(of: "IMAGE_BASE", with: imageBase).utf8)
}

/// A loopback recipe site: the Yoast page at /tikka (from /old through a redirect), the magazine page at /lemon (its
/// image missing), a page without a recipe, an image where a page should be, a redirect loop, a 404, an outsized page.
final class RecipeSite: Sendable {
    let server: LoopbackHTTPServer
    /// What /tikka serves: the page, or after `changePage` the page with another yield.
    private let changed = Locked(false)
    let png: Data

    init(png: Data) throws {
        let changed = self.changed
        let base = Locked("")
        server = try LoopbackHTTPServer { head in
            let html = ["Content-Type": "text/html; charset=utf-8"]
            let site = base.withLock { $0 }
            do {
                switch head.path {
                case "/tikka":
                    var page = try sitePage("yoast-graph-recipe.html", imageBase: site)
                    if changed.withLock({ $0 }) {
                        page = Data(String(decoding: page, as: UTF8.self).replacingOccurrences(of: #""4 servings""#, with: #""6 servings""#).utf8)
                    }
                    return .respond(status: 200, headers: html, body: page)
                case "/old": return .respond(status: 301, headers: ["Location": "/tikka"])
                case "/lemon": return .respond(status: 200, headers: html, body: try sitePage("magazine-recipe.html", imageBase: site))
                case "/about": return .respond(status: 200, headers: html, body: try sitePage("no-recipe-page.html", imageBase: site))
                case "/images/tikka.png", "/picture": return .respond(status: 200, headers: ["Content-Type": "image/png"], body: png)
                case "/loop": return .respond(status: 302, headers: ["Location": "\(site)/loop"])
                case "/huge": return .respond(status: 200, headers: html, body: Data(repeating: UInt8(ascii: " "), count: 9 << 20))
                default: return .respond(status: 404, headers: html, body: Data("<h1>Not found</h1>".utf8))
                }
            } catch {
                return .respond(status: 500)
            }
        }
        self.png = png
        base.withLock { $0 = server.baseURL }
    }

    func changePage() { changed.withLock { $0 = true } }
    var url: String { server.baseURL }
    deinit { server.stop() }
}

@Suite("recipes import <url>: the big sites' pages fetched over http, every property kept, a page imported again updates its recipe")
struct ImportFromWebTests {
    func site(_ client: Client) throws -> RecipeSite {
        let path = client.image("tikka.png", size: 2048, seed: 9)
        return try RecipeSite(png: try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    func show(_ client: Client, _ id: Int) throws -> [String: Any] {
        let result = try client.run(["show", String(id), "--json"])
        #expect(result.status == 0, "\(result)")
        return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] ?? [:]
    }

    @Test("a page behind a redirect is imported with its details, sections, image and every other property; the token never goes to it")
    func importsPage() throws {
        let client = Client()
        client.token = "secret-token-never-sent"
        let site = try site(client)
        let result = try client.run(["import", site.url + "/old"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout == "imported 1: Chicken Tikka Masala & Rice\n")
        let recipe = try show(client, 1)
        #expect(recipe["url"] as? String == "https://spice.example.com/chicken-tikka-masala/")
        #expect(recipe["cookTime"] as? String == "PT40M" && recipe["totalTime"] as? String == "PT1H")
        #expect(recipe["author"] as? String == "Priya Sharma")
        #expect(recipe["recipeYield"] as? String == "4 servings")
        #expect(recipe["stepSections"] as? [String] == ["Marinade", "Marinade", "Sauce", "Sauce", "Rice"])
        #expect((recipe["nutrition"] as? [String: String])?["calories"] == "612 kcal")
        #expect((recipe["properties"] as? [String: Any]).map { Set($0.keys) }
            == ["@id", "aggregateRating", "datePublished", "isPartOf", "mainEntityOfPage", "video"])
        let image = try #require(recipe["image"] as? [String: Any])
        #expect(image["bytes"] as? Int == site.png.count && image["format"] as? String == "png")
        #expect(site.server.heads.map(\.path) == ["/old", "/tikka", "/images/tikka.png"])
        #expect(site.server.heads.allSatisfy { $0.headers["authorization"] == nil })
        #expect(site.server.heads.allSatisfy { $0.headers["user-agent"]?.hasPrefix("recipes/") == true })
        let text = try client.run(["show", "1"])
        #expect(text.stdout.contains("cook time:    40m\n") && text.stdout.contains("  == Marinade ==\n  1. Mix the yoghurt"))
    }

    @Test("the same page again updates its recipe in one revision (or leaves it), --as-new makes a second, and each says so")
    func importAgain() throws {
        let client = Client()
        let site = try site(client)
        #expect(try client.run(["import", site.url + "/tikka"]).status == 0)
        let same = try client.run(["import", site.url + "/tikka"])
        #expect(same.stdout == "unchanged 1: Chicken Tikka Masala & Rice (it already is as https://spice.example.com/chicken-tikka-masala/ has it)\n")
        site.changePage()
        let again = try client.run(["import", site.url + "/old"])
        #expect(again.status == 0, "\(again)")
        #expect(again.stdout == "updated 1: Chicken Tikka Masala & Rice (imported again from https://spice.example.com/chicken-tikka-masala/, revision 2)\n")
        #expect(try show(client, 1)["recipeYield"] as? String == "6 servings")
        let second = try client.run(["import", "--as-new", site.url + "/tikka"])
        #expect(second.stdout == "imported 2: Chicken Tikka Masala & Rice (a second recipe of https://spice.example.com/chicken-tikka-masala/; 1 has it too)\n")
        let list = try client.run(["list", "--json"])
        #expect((try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [Any])?.count == 2)
    }

    @Test("what is not a recipe page is refused with one line each and nothing imported", arguments: [
        ("/missing", "the site has no such page (404); check the address"),
        ("/loop", "redirects more than 5 times; check the address"),
        ("/picture", "not a web page (Content-Type image/png); give the address of a recipe's page"),
        ("/about", "no schema.org Recipe found: looked for JSON-LD"),
        ("/huge", "it is larger than 8 MiB"),
    ])
    func refusals(_ path: String, _ message: String) throws {
        let client = Client()
        let site = try site(client)
        let result = try client.run(["import", site.url + path])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("recipes: \(site.url)\(path): ") && result.stderr.contains(message), "\(result)")
        #expect(result.stderr.hasSuffix("; nothing of it was imported\n") && result.stdout.isEmpty)
        #expect(try client.run(["list"]).stdout.hasPrefix("no recipes yet"))
    }

    @Test("a host that is not there is refused in words; an https site is verified, and an extra CA honoured")
    func unreachableAndTLS() throws {
        let client = Client()
        let port = try closedPort()
        let refused = try client.run(["import", "http://127.0.0.1:\(port)/recipe"])
        #expect(refused.status == 1 && refused.stderr.contains("127.0.0.1 refused the connection"), "\(refused)")
        let (https, certificates) = try HTTPSSite.started(in: client.folder)
        let port443 = https.port
        let unverified = try client.run(["import", "https://127.0.0.1:\(port443)/recipe"])
        #expect(unverified.status == 1 && unverified.stderr.contains("the TLS certificate of 127.0.0.1 did not verify"), "\(unverified)")
        client.caBundle = certificates + "/ca.pem"
        let verified = try client.run(["import", "https://127.0.0.1:\(port443)/recipe"])
        #expect(verified.status == 1 && verified.stderr.contains("neither JSON nor an HTML page"), "\(verified)")
    }

    @Test("a page whose image cannot be fetched is imported all the same, keeping the image's address, with a note")
    func missingImage() throws {
        let client = Client()
        let site = try site(client)
        let result = try client.run(["import", site.url + "/lemon"])
        #expect(result.status == 0)
        #expect(result.stdout == "imported 1: Lemon drizzle cake\n")
        #expect(result.stderr == "recipes: note: the image of \"Lemon drizzle cake\" (\(site.url)/images/lemon.png) was not fetched: the site has no such page (404); check the address; the recipe keeps its address\n")
        let recipe = try show(client, 1)
        #expect(recipe["image"] is NSNull)
        #expect((recipe["sync"] as? [String: Any])?["remoteImage"] as? String == site.url + "/images/lemon.png")
    }

    @Test("import → export keeps every property of the page; the export imports back to the same recipe")
    func exportKeepsEverything() throws {
        let client = Client()
        let site = try site(client)
        #expect(try client.run(["import", site.url + "/tikka"]).status == 0)
        let out = client.folder.appendingPathComponent("out").path
        let exported = try client.run(["export", "--out", out])
        #expect(exported.status == 0, "\(exported)")
        let file = try #require(try FileManager.default.contentsOfDirectory(atPath: out).first { $0.hasSuffix(".json") })
        let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/" + file))) as? [String: Any])
        for key in ["@id", "aggregateRating", "datePublished", "isPartOf", "mainEntityOfPage", "video", "nutrition", "author",
                    "recipeCategory", "recipeCuisine", "suitableForDiet", "prepTime", "cookTime", "totalTime", "url"] {
            #expect(document[key] != nil, "\(key) is kept")
        }
        #expect((document["author"] as? [String: Any])?["url"] as? String == "https://spice.example.com/about/")
        #expect((document["aggregateRating"] as? [String: Any])?["ratingCount"] as? String == "213")
        #expect(document["image"] as? String == file.replacingOccurrences(of: ".json", with: ".png"))
        let again = Client()
        let imported = try again.run(["import", out + "/" + file])
        #expect(imported.status == 0, "\(imported)")
        var first = try show(client, 1)
        var second = try show(again, 1)
        for key in ["id", "uuid", "sync", "dateModified", "image"] {
            first[key] = nil
            second[key] = nil
        }
        #expect(NSDictionary(dictionary: first) == NSDictionary(dictionary: second))
        let markdown = try client.run(["export", "--format", "markdown"])
        #expect(markdown.stdout.hasPrefix("# Chicken Tikka Masala & Rice\n"))
        #expect(markdown.stdout.contains("### Marinade\n\n1. Mix the yoghurt"))
    }

    @Test("a saved page: its url is --url, else its canonical link; importing it again updates, never duplicates silently")
    func savedPage() throws {
        let client = Client()
        let path = client.directory.file("lemon.html", [UInt8](try sitePage("magazine-recipe.html", imageBase: "https://img.example.com")))
        #expect(try client.run(["import", path]).stdout == "imported 1: Lemon drizzle cake\n")
        #expect(try show(client, 1)["url"] as? String == "https://bakes.example.org/recipes/lemon-drizzle-cake")
        #expect(try client.run(["import", path]).stdout.hasPrefix("unchanged 1: Lemon drizzle cake"))
        let elsewhere = try client.run(["import", "--url", "https://mirror.example.net/lemon", path])
        #expect(elsewhere.stdout == "imported 2: Lemon drizzle cake\n")
        #expect(try show(client, 2)["url"] as? String == "https://mirror.example.net/lemon")
        let bad = try client.run(["import", "--url", "mirror.example.net", path])
        #expect(bad.status == 64 && bad.stderr.contains("--url takes the page's http:// or https:// address"))
    }

    @Test("show --servings and --scale scale quantities and the yield; a yield without a number is refused for --servings")
    func scaling() throws {
        let client = Client()
        let site = try site(client)
        #expect(try client.run(["import", site.url + "/tikka"]).status == 0)
        let doubled = try client.run(["show", "1", "--servings", "8"])
        #expect(doubled.status == 0, "\(doubled)")
        #expect(doubled.stdout.contains("yield:        8 servings\nscaled:       × 2 (quantities and yield)\n"))
        #expect(doubled.stdout.contains("  1. 1200 g chicken thighs, diced\n") && doubled.stdout.contains("  4. 3 tsp salt\n"))
        let half = try client.run(["show", "1", "--scale", "0.5", "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(half.stdout.utf8)) as? [String: Any]
        #expect((object?["ingredients"] as? [String])?.first == "300 g chicken thighs, diced")
        #expect(object?["scale"] as? Double == 0.5)
        #expect(try client.run(["edit"], input: "yield 1 \"a big pot\"\n").status == 0)
        let refused = try client.run(["show", "1", "--servings", "8"])
        #expect(refused.status == 1)
        #expect(refused.stderr == "recipes: recipe 1: the recipe has the yield \"a big pot\", with no number to scale from; use --scale (e.g. --scale 2), or set its yield\n")
        let both = try client.run(["show", "1", "--servings", "8", "--scale", "2"])
        #expect(both.status == 64)
    }

    @Test("the REPL edits every new field; a bad time or nutrition property is one clear line and changes nothing")
    func replEdits() throws {
        let client = Client()
        try client.edit([
            "new Bread", "preptime 1 \"1h 30m\"", "cooktime 1 \"45 min\"", "totaltime 1 PT2H15M", "category 1 Bread, Baking",
            "cuisine 1 French", "author 1 Jean Dupont", "url 1 https://example.org/bread", "tools 1 Loaf tin, Oven",
            "diets 1 vegan, gluten free", "nutrition 1 calories 180 kcal", "nutrition 1 fat \"2 g\"", "step add 1 Knead.",
            "step add 1 Bake.", "step section 1 2 In the oven", "step add 1 Cool.",
        ])
        let recipe = try show(client, 1)
        #expect(recipe["prepTime"] as? String == "PT1H30M" && recipe["cookTime"] as? String == "PT45M")
        #expect(recipe["recipeCategory"] as? [String] == ["Bread", "Baking"])
        #expect(recipe["suitableForDiet"] as? [String] == ["https://schema.org/VeganDiet", "https://schema.org/GlutenFreeDiet"])
        #expect(recipe["nutrition"] as? [String: String] == ["calories": "180 kcal", "fatContent": "2 g"])
        #expect(recipe["stepSections"] as? [String] == ["", "In the oven", "In the oven"])
        let text = try client.run(["show", "1", "--details"]).stdout
        #expect(text.contains("prep time:    1h 30m\ncook time:    45m\ntotal time:   2h 15m\ncategory:     Bread, Baking\n"))
        #expect(text.contains("diets:        vegan, gluten-free\nnutrition:    calories 180 kcal\n              fatContent 2 g\n"))
        let bad = try client.run(["edit"], input: "preptime 1 soon\nnutrition 1 vitamins lots\nurl 1 example.org\n")
        #expect(bad.status == 1)
        #expect(bad.stderr == """
            error: line 1: "soon" is not a time; write it like 1h 30m, 90 min or PT1H30M ("" clears it)
            error: line 2: "vitamins" is not a nutrition property; name one of calories, carbohydrateContent, cholesterolContent, fatContent, fiberContent, proteinContent, saturatedFatContent, servingSize, sodiumContent, sugarContent, transFatContent, unsaturatedFatContent (fat, protein, carbs, … for short)
            error: line 3: "example.org" is not a web address; give the page's http:// or https:// address

            """)
        #expect((try show(client, 1)["sync"] as? [String: Any])?["revision"] as? Int == 16)
        let found = try client.run(["search", "category:bread"])
        #expect(found.stdout.contains("Bread"))
    }
}

/// The transport tests' HTTPS endpoint (python3's http.server behind TLS with a certificate of a test CA), answering
/// every GET with `200 secure`; it stops when this is released.
final class HTTPSSite {
    /// Makes a test CA in `folder`/tls (the transport tests' `make_test_ca.sh`) and starts a site with its
    /// certificate for 127.0.0.1; the site, and the folder of `ca.pem`.
    static func started(in folder: URL) throws -> (site: HTTPSSite, certificates: String) {
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("TransportTests/Fixtures")
        let certificates = folder.appendingPathComponent("tls").path
        try FileManager.default.createDirectory(atPath: certificates, withIntermediateDirectories: true)
        let make = try ChildProcess(URL(fileURLWithPath: "/bin/sh"), [fixtures.appendingPathComponent("make_test_ca.sh").path, certificates],
                                    environment: ["PATH": "/usr/bin:/bin"], input: nil).result()
        #expect(make.status == 0, "\(make)")
        let site = try HTTPSSite(script: fixtures.appendingPathComponent("https_server.py").path, certificates: certificates)
        return (site, certificates)
    }

    let port: Int
    private let process = Process()
    private let input = Pipe()

    init(script: String, certificates: String) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [script, certificates + "/server.pem", certificates + "/server.key"]
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

    deinit {
        try? input.fileHandleForWriting.close()  // the script exits when its stdin closes
        process.waitUntilExit()
    }
}
