import RecipeModels

/// What the bytes a terminal sends in raw mode mean to `recipes cook`: keys of the session, or Ctrl-C.
enum CookInput: Sendable, Equatable {
    /// A key of the cook mode.
    case key(CookSession.Key)
    /// Ctrl-C: leave at once.
    case interrupt

    /// The inputs `bytes` (one read of the terminal) hold, in order: → (`ESC [ C` or `ESC O C`), `n`, space and
    /// Return go on; ← (`ESC [ D`, `ESC O D`), `p` and Backspace go back; `i` ingredients; `t` timer; `q` and Ctrl-D
    /// quit; Ctrl-C interrupts. Other keys and escape sequences (↑, ↓, F1, a lone Escape) are skipped.
    static func decode(_ bytes: [UInt8]) -> [CookInput] {
        var inputs: [CookInput] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if byte == 0x1B {
                // CSI (`ESC [` parameters, then a final byte from @ to ~) or SS3 (`ESC O` and one byte).
                guard index < bytes.count else { continue }
                let introducer = bytes[index]
                if introducer == UInt8(ascii: "[") {
                    var end = index + 1
                    while end < bytes.count, !(0x40...0x7E).contains(bytes[end]) { end += 1 }
                    guard end < bytes.count else { return inputs }
                    if end == index + 1 { inputs += arrow(bytes[end]) }
                    index = end + 1
                } else if introducer == UInt8(ascii: "O"), index + 1 < bytes.count {
                    inputs += arrow(bytes[index + 1])
                    index += 2
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "n"), UInt8(ascii: "N"), UInt8(ascii: " "), UInt8(ascii: "\r"), UInt8(ascii: "\n"):
                inputs.append(.key(.next))
            case UInt8(ascii: "p"), UInt8(ascii: "P"), 0x7F, 0x08:
                inputs.append(.key(.back))
            case UInt8(ascii: "i"), UInt8(ascii: "I"):
                inputs.append(.key(.ingredients))
            case UInt8(ascii: "t"), UInt8(ascii: "T"):
                inputs.append(.key(.timer))
            case UInt8(ascii: "q"), UInt8(ascii: "Q"), 0x04:
                inputs.append(.key(.quit))
            case 0x03:
                inputs.append(.interrupt)
            default:
                break
            }
        }
        return inputs
    }

    /// → and ← by the final byte of their escape sequence; nothing for the others.
    private static func arrow(_ final: UInt8) -> [CookInput] {
        switch final {
        case UInt8(ascii: "C"): [.key(.next)]
        case UInt8(ascii: "D"): [.key(.back)]
        default: []
        }
    }
}
