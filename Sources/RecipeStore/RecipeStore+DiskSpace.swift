import Foundation
import GRDB
#if canImport(Glibc)
import Glibc
#endif

extension RecipeStore {
    /// Below this much free space a write SQLite could not do is put down to a full disk.
    static let nearlyFullBytes: Int64 = 4 << 20

    /// The store error for SQLite's `code`, met at the database `path`, when it comes from a full disk: `SQLITE_FULL`,
    /// or an I/O error while the disk has less than `nearlyFullBytes` free (`freeBytes`: SQLite reports a `-wal` or
    /// `-shm` file it cannot grow as an I/O error, not as a full disk). Nil for anything else.
    static func diskFull(
        _ code: ResultCode, path: String, inChange: Bool, freeBytes: (String) -> Int64?
    ) -> StoreError? {
        guard code == .SQLITE_FULL || code == .SQLITE_IOERR else { return nil }
        let free = freeBytes(path)
        if code == .SQLITE_IOERR, (free ?? .max) >= nearlyFullBytes { return nil }
        return StoreError(.diskFull(path: path, freeBytes: free ?? 0, changeDiscarded: inChange))
    }

    /// The bytes an ordinary user may still write on the file system holding `path` (its folder, when the file is
    /// not there), or nil when that cannot be told.
    static func freeBytes(near path: String) -> Int64? {
        var info = statvfs()
        guard statvfs(path, &info) == 0 || statvfs((path as NSString).deletingLastPathComponent, &info) == 0 else {
            return nil
        }
        return Int64(info.f_bavail).multipliedReportingOverflow(by: Int64(info.f_frsize)).partialValue
    }
}
