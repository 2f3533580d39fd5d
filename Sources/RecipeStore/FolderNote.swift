import Foundation

/// What `recipes status` says once about a folder of the home that recipes leaves alone: a link or a file in place
/// of the folder (which the commands that write there refuse), or entries recipes did not write (which garbage
/// collection never deletes).
public struct FolderNote: Sendable, Equatable {
    /// What was found.
    public enum Finding: Sendable, Equatable {
        /// The folder is a symbolic link to `destination`.
        case symbolicLink(destination: String)
        /// Something that is not a folder has the folder's name.
        case notAFolder
        /// Entries recipes did not write, sorted by name.
        case foreignEntries([String])
    }

    /// The folder (`<home>/media`, `<home>/outbox` or `<home>/images`).
    public var folder: URL
    /// What was found there.
    public var finding: Finding

    /// How many names `text` lists before "…".
    static let namesShown = 5

    /// One line for a person, e.g. "outbox/ holds 2 files recipes did not write (left alone): notes.txt, x.jpg".
    public var text: String {
        let name = folder.lastPathComponent + "/"
        switch finding {
        case .symbolicLink(let destination):
            return "\(name) is a symbolic link to \(destination): recipes does not write or delete there, and `sync` "
                + "and `edit` refuse to run until you remove the link (`rm \(folder.path)`; \(destination) stays as it is)"
        case .notAFolder:
            return "\(folder.path) is not a folder: `sync` and `edit` refuse to run until you move it aside"
        case .foreignEntries(let names):
            let count = names.count == 1 ? "1 file" : "\(names.count) files"
            let shown = names.prefix(Self.namesShown).joined(separator: ", ")
            return "\(name) holds \(count) recipes did not write (left alone): \(shown)"
                + (names.count > Self.namesShown ? ", …" : "")
        }
    }
}

extension RecipesHome {
    /// The notes about `media/`, `outbox/` and `images/` (in that order): one listing of each folder, nothing for a
    /// missing one. A folder that cannot be read gets no note (the commands that use it say why).
    public func folderNotes() -> [FolderNote] {
        let folders: [(URL, (HomeFolder.Entry) -> Bool)] = [
            (mediaURL, { MediaLibrary.isOwnFile($0) || ($0.isRegularFile && $0.name == MediaLibrary.lockFileName) }),
            (outboxURL, Outbox.isOwnFile),
            (imagesURL, { $0.isRegularFile && (OwnFileNames.isImageCopy($0.name) || OwnFileNames.isTemporaryFile($0.name)
                || $0.name == ImageLibrary.lockFileName) }),
        ]
        var notes: [FolderNote] = []
        for (url, isOwn) in folders {
            do {
                guard let folder = try HomeFolder.open(url.path) else { continue }
                let foreign = try folder.entries().filter { !isOwn($0) }.map(\.name).sorted()
                if !foreign.isEmpty { notes.append(FolderNote(folder: url, finding: .foreignEntries(foreign))) }
            } catch {
                switch error.kind {
                case .symlinkedFolder(_, let destination):
                    notes.append(FolderNote(folder: url, finding: .symbolicLink(destination: destination)))
                case .notAFolder:
                    notes.append(FolderNote(folder: url, finding: .notAFolder))
                default:
                    continue
                }
            }
        }
        return notes
    }
}
