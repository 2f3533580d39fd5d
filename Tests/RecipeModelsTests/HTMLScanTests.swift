import Foundation
import Testing
@testable import RecipeModels

@Suite("The JSON-LD scripts of a page are found in one pass over it")
struct HTMLScanTests {
    @Test("which scripts are found, from a table: any case, attributes around the type, quotes, wrappers, end tags")
    func table() {
        let cases: [(String, [String])] = [
            (#"<script type="application/ld+json">{"a":1}</script>"#, [#"{"a":1}"#]),
            (#"<SCRIPT Type = 'Application/LD+JSON' id=x>{"a":1}</Script >"#, [#"{"a":1}"#]),
            (#"<script data-x=1 type=application/ld+json async>{"a":1}</script>"#, [#"{"a":1}"#]),
            (#"<script data-type="application/ld+json">{"a":1}</script>"#, [#"{"a":1}"#]),
            ("<script type=\"application/ld+json\">\n<!-- {\"a\":1} -->\n</script>", [#"{"a":1}"#]),
            (#"<script type="application/ld+json">//<![CDATA[ {"a":1} //]]></script>"#, [#"{"a":1}"#]),
            (#"<script type="application/ld+json">   </script><script type="application/ld+json">2</script>"#, ["2"]),
            // Other scripts are skipped whole: their text is not read as tags.
            (#"<script>var s = '<script type="application/ld+json">x';</script><script type="application/ld+json">y</script>"#,
             ["y"]),
            (#"<scripts type="application/ld+json">x</script>"#, []),
            (#"<script typex="application/ld+json">x</script>"#, []),
            (#"<script type="text/javascript">x</script>"#, []),
            // The body runs to the first end tag; `</scriptx` is none.
            (#"<script type="application/ld+json">a</scriptx>b</script>"#, ["a</scriptx>b"]),
            (#"<script type="application/ld+json">a<script type="application/ld+json">b</script>"#,
             [#"a<script type="application/ld+json">b"#]),
            // Unclosed: nothing after it can end.
            (#"<script type="application/ld+json">a"#, []),
            (#"<script type="application/ld+json""#, []),
            (#"<p>é</p><script type="application/ld+json">{"name":"Crème"}</script>"#, [#"{"name":"Crème"}"#]),
        ]
        for (html, expected) in cases {
            #expect(RecipeJSONLD.scripts(inHTML: html) == expected, "\(html)")
        }
    }

    @Test("a page of thousands of unclosed JSON-LD script tags is read in one pass (minutes before: a search per tag)")
    func unclosedTagsAreLinear() async throws {
        // About 1 MB: the search per tag of the pattern matcher took about 35 s for 175 KB and grew with the square.
        let page = #"<script type="application/ld+json">{"@type":"Recipe","name":"First"}</script>"#
            + String(repeating: #"<script type="application/ld+json">{"@type":"Recipe"} "#, count: 20_000)
        let done = DispatchSemaphore(value: 0)
        let found = Box()
        Thread {
            found.value = RecipeJSONLD.scripts(inHTML: page).count
            done.signal()
        }.start()
        // A bound far above the time the pass takes (well under a second), to keep a quadratic scan from hanging the
        // suite; not a timing of it.
        #expect(done.wait(timeout: .now() + 120) == .success, "the scan of 1 MB did not end within 2 minutes")
        #expect(found.value == 1)
    }
}

/// A value set by one thread and read by another after a semaphore.
private final class Box: @unchecked Sendable {
    // @unchecked Sendable: written once by the scanning thread before it signals the semaphore the test waits on, and
    // read only after that wait.
    var value = -1
}
