import Foundation
import Testing
@testable import RecipeModels
@testable import RecipesCommandLine

@Suite("a run that fell back from an optional request says which request failed in its summary")
struct FallbackSummaryTests {
    @Test("the summary line names the refused request after the counts, and the run is complete")
    func summaryNamesTheRequest() {
        var summary = SyncSummary(done: 2)
        summary.fallbacks = [
            "the server lists recipes-batch in GET /v1/health but answered HTTP 404 to POST /v1/recipes/batch "
                + "(a proxy before it?): this run sends each recipe with its own PUT or DELETE /v1/recipes/<uuid>",
        ]
        #expect(summary.verdict == .complete)
        #expect(SyncEventText.summary(summary) == "sync: 2 done, fell back: the server lists recipes-batch in GET "
            + "/v1/health but answered HTTP 404 to POST /v1/recipes/batch (a proxy before it?): this run sends each "
            + "recipe with its own PUT or DELETE /v1/recipes/<uuid>")
    }
}
