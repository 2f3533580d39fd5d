import Foundation
import SystemFiles
import Testing

/// `/proc/self/cmdline` read back as the arguments the process was started with: what both executables use when
/// Swift's runtime found none (a library preloaded before `main`, such as libfaketime, moved `environ`).
@Suite("ProcessArguments: the kernel's record of the arguments")
struct ProcessArgumentsTests {
    @Test("NUL-terminated arguments, empty ones kept, a last one without its NUL, bad UTF-8 repaired", arguments: [
        (Data("recipes\0sync\0--json\0".utf8), ["recipes", "sync", "--json"]),
        (Data("recipes\0\0new\0".utf8), ["recipes", "", "new"]),
        (Data("recipes\0list".utf8), ["recipes", "list"]),
        (Data([0x72, 0x00, 0xFF, 0x00]), ["r", "\u{FFFD}"]),
        (Data(), []),
    ] as [(Data, [String])])
    func parses(_ cmdline: Data, expected: [String]) {
        #expect(ProcessArguments.parse(cmdline: cmdline) == expected)
    }

    @Test("this process's arguments are the runtime's when it found them")
    func currentIsTheRuntimes() {
        #expect(ProcessArguments.current() == CommandLine.arguments)
        #expect(!ProcessArguments.current().isEmpty)
    }
}
