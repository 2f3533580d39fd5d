#if canImport(Glibc)
import Glibc
#endif

/// How the REPL reads what is typed on a terminal. libedit converts, shows and measures the characters it reads with
/// the C library's `LC_CTYPE`, which a program is in the "C" locale for until it sets one: there every character but
/// ASCII is dropped. So before libedit starts, `LC_CTYPE` is set to the UTF-8 locale the environment names, else to
/// `C.UTF-8` (a terminal whose environment names no locale, or C/POSIX, still sends UTF-8 on every system we know);
/// when no UTF-8 locale can be set, only ASCII is read and a line holding anything else is refused with `refusal`,
/// never stored without it.
enum TerminalLocale: Equatable {
    /// Characters are read as UTF-8 under this `LC_CTYPE`.
    case utf8(String)
    /// No UTF-8 locale could be set: only ASCII is read. `named` is the locale the environment names.
    case asciiOnly(named: String)

    /// The locale that stands in for one the environment does not name (or names as C/POSIX, or lacks).
    static let fallback = "C.UTF-8"

    /// The locale the environment names for characters, as the C library picks it: `LC_ALL`, else `LC_CTYPE`, else
    /// `LANG` (the first that is set and not empty); "C" when none is.
    static func named(in environment: [String: String]) -> String {
        for key in ["LC_ALL", "LC_CTYPE", "LANG"] {
            if let value = environment[key], !value.isEmpty { return value }
        }
        return "C"
    }

    /// Whether a codeset (`nl_langinfo(CODESET)`) is UTF-8.
    static func isUTF8(codeset: String) -> Bool {
        let folded = codeset.lowercased().filter { $0 != "-" && $0 != "_" }
        return folded == "utf8"
    }

    /// Whether a locale's name says it is not UTF-8 (`en_US.ISO-8859-1`, `de_DE@euro`…): a terminal set up for it
    /// sends bytes of another encoding, which reading them as UTF-8 would turn into other characters.
    static func namesOtherEncoding(_ name: String) -> Bool {
        guard let dot = name.firstIndex(of: ".") else { return false }
        let codeset = name[name.index(after: dot)...].prefix { $0 != "@" }
        return !isUTF8(codeset: String(codeset))
    }

    /// Decides how to read: `apply(name)` sets `LC_CTYPE` to the locale `name` and answers its codeset, nil when the
    /// system has no such locale. The environment's locale is used when it is a UTF-8 one; C.UTF-8 stands in when it
    /// names none, C or POSIX, or a UTF-8 one this system lacks; a locale of another encoding, or no UTF-8 locale at
    /// all, reads ASCII only.
    static func choose(environment: [String: String], apply: (String) -> String?) -> TerminalLocale {
        let name = named(in: environment)
        if let codeset = apply(name), isUTF8(codeset: codeset) { return .utf8(name) }
        if !namesOtherEncoding(name), let codeset = apply(fallback), isUTF8(codeset: codeset) { return .utf8(fallback) }
        _ = apply("C")
        return .asciiOnly(named: name)
    }

    /// Sets the process's `LC_CTYPE` as `choose` decides from `environment` (call it before libedit starts).
    static func apply(environment: [String: String]) -> TerminalLocale {
        choose(environment: environment) { name in
            guard setlocale(LC_CTYPE, name) != nil, let codeset = nl_langinfo(nl_item(CODESET)) else { return nil }
            return String(cString: codeset)
        }
    }

    /// Whether characters other than ASCII are read.
    var readsUTF8: Bool {
        if case .utf8 = self { return true }
        return false
    }

    /// The one line that refuses a line holding what could not be read.
    var refusal: String {
        switch self {
        case .utf8:
            return "the terminal sent bytes that are not UTF-8 text (shown as ?); the line was not run: set the "
                + "terminal's character encoding to UTF-8 and type it again"
        case .asciiOnly(let name):
            let why = Self.namesOtherEncoding(name)
                ? "the locale \(name) is not a UTF-8 one"
                : "the locale is \(name) and this system has no UTF-8 locale (not even \(Self.fallback))"
            return "only ASCII can be read here (shown as ?): \(why); the line was not run: set LANG to a UTF-8 "
                + "locale (`locale -a` lists them), or give the text through a pipe: echo '…' | recipes edit"
        }
    }
}
