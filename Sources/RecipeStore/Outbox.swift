import Foundation
import SystemFiles

#if canImport(Glibc)
import Glibc
#endif

/// `<home>/outbox/`: the exact JSON bytes uploaded for one revision of one recipe, `<uuid>-<revision>.json`.
///
/// A file is written (under a temporary name, then renamed) before its upload starts and deleted when the server
/// has acknowledged it; files no unsynced work refers to are collected at the start of each sync. Only names of
/// that shape (and temporary names, see `TemporaryFiles`) are ever collected: anything else is left alone.
public struct Outbox: Sendable {
    /// The outbox folder.
    public let directory: URL

    /// Who writes through this value, named in its temporary files (see `TemporaryFiles`).
    let writer: String

    /// Creates the outbox of `directory`; `writer` (a lease owner, this process unless a caller says otherwise) names
    /// the process writing through it.
    public init(directory: URL, writer: String = LeaseOwner.current) {
        self.directory = directory
        self.writer = writer
        directoryPath = directory.path
    }

    /// `directory.path`, kept: building paths with `URL` for every file was measurable in a long sync.
    private let directoryPath: String

    /// `<uuid>-<revision>.json`.
    public static func fileName(uuid: String, revision: Int64) -> String { "\(uuid.lowercased())-\(revision).json" }

    /// The marker `referencedOutboxFiles` uses for "every revision of this recipe" (its upload is live elsewhere).
    static func leasedPrefix(uuid: String) -> String { "\(uuid.lowercased())-*" }

    /// The `leasedPrefix` marker matching an outbox file name, or nil for a name that is not `<uuid>-<n>.json`.
    static func uuidPrefix(of fileName: String) -> String? {
        guard fileName.hasSuffix(".json"), let dash = fileName.lastIndex(of: "-") else { return nil }
        return String(fileName[..<dash]) + "-*"
    }

    /// The full path of `fileName`.
    public func path(of fileName: String) -> String { directoryPath + "/" + fileName }

    /// Writes `data` as the payload of `uuid` at `revision`, atomically (the final name appears only with the whole
    /// contents); returns its path.
    ///
    /// `recycling` names a file of this outbox that is no longer needed (one whose upload the server acknowledged in
    /// this run): it is overwritten under its old name, then renamed to the new one, instead of a new file being
    /// created. On a file system without a journal (like the benchmark machine's ext4), creating a file searches past
    /// every inode freed in the last seconds, which was the largest single cost of a 1,000-recipe sync; a rename
    /// allocates nothing. A crash midway leaves the old name, which garbage collection removes as unreferenced. When
    /// the spare is gone (another process collected it), a new file is written under a temporary name and renamed.
    ///
    /// Not fsynced: the file is a copy of what the database already holds durably, rebuilt byte for byte by the next
    /// attempt if a crash loses it, and an fsync per recipe was a tenth of a 1,000-recipe sync's wall time.
    public func write(_ data: Data, uuid: String, revision: Int64, recycling spare: String? = nil) throws(StoreError) -> String {
        let final = path(of: Self.fileName(uuid: uuid, revision: revision))
        if let spare, let recycled = try? AtomicFile(reusing: path(of: spare)) {  // a link at the name is not followed
            do throws(ErrnoError) {
                try recycled.write(data)
                try recycled.commit(to: final)
                return final
            } catch {
                // The spare is removed (no half-written file is left under any name); a new file is written below.
            }
        }
        do throws(ErrnoError) {
            let file = try AtomicFile(creating: path(of: TemporaryFiles.name(writer: writer)))
            try file.write(data)
            try file.commit(to: final)
            return final
        } catch {
            throw StoreError(error)
        }
    }

    /// Removes `fileName` if present.
    public func remove(_ fileName: String) { unlink(path(of: fileName)) }

    /// The names of the files in the outbox (none when the folder is missing).
    public func fileNames() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
    }
}

extension Outbox {
    /// Whether `entry` is a file of the outbox that recipes wrote: a regular file named `<uuid>-<revision>.json` or
    /// a temporary name.
    static func isOwnFile(_ entry: HomeFolder.Entry) -> Bool {
        entry.isRegularFile && (OwnFileNames.isOutboxFile(entry.name) || OwnFileNames.isTemporaryFile(entry.name))
    }
}
