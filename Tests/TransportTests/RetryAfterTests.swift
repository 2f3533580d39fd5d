import Foundation
import Testing
import Transport

@Suite("parseRetryAfter: seconds or an HTTP date")
struct RetryAfterTests {
    /// 2026-11-20T10:00:00Z.
    let now = Date(timeIntervalSince1970: 1_795_168_800)

    @Test("Delay-seconds are taken as they are")
    func seconds() {
        #expect(parseRetryAfter("0", now: now) == .zero)
        #expect(parseRetryAfter("30", now: now) == .seconds(30))
        #expect(parseRetryAfter(" 7 ", now: now) == .seconds(7))
    }

    @Test("An IMF-fixdate is measured from now")
    func imfFixdate() {
        #expect(parseRetryAfter("Fri, 20 Nov 2026 10:01:30 GMT", now: now) == .seconds(90))
    }

    @Test("The obsolete RFC 850 and asctime forms are accepted")
    func obsoleteForms() {
        #expect(parseRetryAfter("Friday, 20-Nov-26 10:00:10 GMT", now: now) == .seconds(10))
        #expect(parseRetryAfter("Fri Nov 20 10:00:20 2026", now: now) == .seconds(20))
    }

    @Test("A date in the past means retry now")
    func pastDate() {
        #expect(parseRetryAfter("Thu, 19 Nov 2026 10:00:00 GMT", now: now) == .zero)
    }

    @Test("Garbage, negative numbers and impossible dates give nil",
          arguments: ["", "soon", "-5", "1.5", "Fri, 31 Feb 2026 10:00:00 GMT", "Fri, 20 Nov 2026 25:00:00 GMT",
                      "Fri, 20 Nov 2026 10:00:00 CET"])
    func invalid(value: String) {
        #expect(parseRetryAfter(value, now: now) == nil)
    }
}
