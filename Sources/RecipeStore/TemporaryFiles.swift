import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The names under which `media/` and `outbox/` files are written before they are renamed into place:
/// `.tmp-<writer>@<random>`, the writer being the `LeaseOwner` string of the writing process. Garbage collection
/// then removes the file of a writer killed mid-write (`kill -9`) at once, and never the file of a live writer,
/// however long it takes. Names without a writer (`.tmp-<random>`, as older versions wrote) are
/// collected once they are older than `grace`. Only names of exactly these shapes are ever collected (see
/// `OwnFileNames.isTemporaryFile`).
public enum TemporaryFiles {
    /// How long garbage collection leaves alone a temporary file that names no writer (another process may be
    /// writing it).
    public static let grace: TimeInterval = 3600
    static let prefix = ".tmp-"

    /// A fresh temporary file name: `.tmp-<writer>@<random>`.
    static func name(writer: String) -> String {
        prefix + writer + "@" + UUID().lowercasedString
    }

    /// The writer a temporary file name carries, if any.
    static func writer(of name: String) -> String? {
        guard name.hasPrefix(prefix), let at = name.firstIndex(of: "@") else { return nil }
        return String(name[name.index(name.startIndex, offsetBy: prefix.count)..<at])
    }

    /// Whether `name` (an entry of `folder`) is a temporary file whose writer may still be at work: its named writer
    /// is alive, or (writer unknown) it was modified less than `grace` before `now`. False for any other name.
    static func isLive(_ name: String, in folder: HomeFolder, now: Date, isWriterAlive: (String) -> Bool) -> Bool {
        guard name.hasPrefix(prefix) else { return false }
        if let writer = writer(of: name) { return isWriterAlive(writer) }
        guard let modified = folder.modificationTime(of: name) else { return false }
        return now.timeIntervalSince1970 - modified < grace
    }
}
