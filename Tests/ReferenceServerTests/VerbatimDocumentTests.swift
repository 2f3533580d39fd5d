import Foundation
import Testing
import ReferenceServer

@Suite("The reference server keeps every property of a recipe document as it was sent")
struct VerbatimDocumentTests {
    @Test("a document with every kind of property, spacing and escape comes back byte for byte from GET and the feed")
    func keepsDocumentBytes() async throws {
        try await withServer { (server: TestServer) async throws in
            let id = UUID().uuidString.lowercased()
            let document = Data("""
                {"@context":"http://schema.org/", "@type":"Recipe","identifier":"\(id)","version":1,
                  "name":"Tom\\u00e1to &amp; soup","recipeYield":["4","4 servings"],"author":{"@type":"Person","name":"Jane","url":"https://x.example/jane"},
                  "nutrition":{"@type":"NutritionInformation","calories":"240 kcal","fatContent":9},
                  "recipeInstructions":[{"@type":"HowToSection","name":"Sauce","itemListElement":[{"@type":"HowToStep","text":"Stir.","url":"https://x.example/#1"}]}],
                  "aggregateRating" : { "ratingValue" : 4.50 , "ratingCount":"12" },"x-extra":[1, 2.0, true, null, 1e3],
                  "comment":"caf\\u00e9 \\/ \\"quoted\\"","totalTime":"P0DT1H30M"}
                """.utf8)
            let put = await RawHTTPClient.exchange(
                port: server.port, method: "PUT", path: "/v1/recipes/\(id)", headers: Fixture.asNew, body: document)
            #expect(put.status == 201)
            let get = await RawHTTPClient.exchange(port: server.port, method: "GET", path: "/v1/recipes/\(id)")
            #expect(get.status == 200 && get.body == document)
            let feed = await RawHTTPClient.exchange(port: server.port, method: "GET", path: "/v1/changes?since=0")
            #expect(feed.status == 200)
            // The feed puts the stored document in as it is.
            #expect(feed.body.range(of: document) != nil)
        }
    }
}
