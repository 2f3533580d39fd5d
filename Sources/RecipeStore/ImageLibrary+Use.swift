import Foundation
import SystemFiles
#if canImport(Glibc)
import Glibc
#endif

/// A pull's claim on `images/` while it downloads images and applies the changes that name them: a shared `flock`
/// on `images/.lock`, released when the value goes. Garbage collection takes the lock exclusively, without waiting:
/// an image a pull installed a moment ago, before the change that names it is applied, is never taken for garbage.
public final class ImagesInUse: Sendable {
    /// The open lock file, or -1 when it could not be opened (the pull then goes on; collection skips nothing).
    private let descriptor: Int32

    fileprivate init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { if descriptor >= 0 { close(descriptor) } }
}

extension ImageLibrary {
    /// The file in the images folder whose `flock` keeps collection away from a pull; never an image, never collected.
    static let lockFileName = ".lock"

    /// Marks the folder in use by a pull until the returned value goes (creating the folder when missing).
    public func markInUse() -> ImagesInUse {
        guard (try? RecipesHome.makeDirectory(directory.path, mode: 0o755)) != nil,
            let folder = try? HomeFolder.open(directory.path)
        else { return ImagesInUse(descriptor: -1) }
        let fd = Self.openLockFile(in: folder)
        guard fd >= 0 else { return ImagesInUse(descriptor: -1) }
        while flock(fd, LOCK_SH) != 0 {
            guard errno == EINTR else { break }
        }
        return ImagesInUse(descriptor: fd)
    }

    /// Runs `body` unless a pull has the folder in use (then nil, at once: the next run collects).
    func unlessInUse<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T? {
        guard let folder = try HomeFolder.open(directory.path) else { return nil }
        let fd = Self.openLockFile(in: folder)
        guard fd >= 0 else { throw StoreError(ErrnoError(errno, .open, path: path(of: Self.lockFileName))) }
        defer { close(fd) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { return nil }
        defer { flock(fd, LOCK_UN) }
        return try body()
    }

    /// Opens (creating it when missing, never through a link) the lock file in the open images `folder`; -1 and
    /// `errno` when it cannot.
    private static func openLockFile(in folder: HomeFolder) -> Int32 {
        openat(folder.descriptor, lockFileName, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
    }
}
