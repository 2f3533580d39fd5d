import Foundation
import RecipeModels
import RecipeStore

extension RecipeImport {
    /// What an imported recipe gets for its image: a copy staged in the media folder, or the address of one on the web.
    struct AttachedImage {
        var staged: StagedImage?
        var remote: String?
    }

    /// The image of the recipe `title`: from a file, a path (relative to the file's folder) or `file:` URL is copied
    /// as `image set` would and a web address is kept as the recipe's remote image; from a page on the web, the image
    /// (its address resolved against the page's) is fetched and copied, and when that fails the recipe keeps its
    /// address and a note says why.
    func attach(
        _ image: ImageSource?, of title: String, source: Source, fetch: PageFetch?, notes: inout [String]
    ) async throws -> AttachedImage {
        switch image {
        case nil:
            return AttachedImage()
        case .local(let reference):
            if let address = source.address, let fetch {
                guard let url = Self.resolve(reference, against: address) else { return AttachedImage() }
                return await download(url, of: title, fetch: fetch, notes: &notes)
            }
            do {
                return AttachedImage(staged: try store.media.stage(from: Self.path(reference, in: source.folder), maxBytes: maxImageBytes))
            } catch {
                throw CommandLineError("the image of \"\(title)\": \(error.errorDescription ?? "\(error)")")
            }
        case .remote(let url):
            guard source.address != nil, let fetch else { return AttachedImage(remote: url) }
            return await download(url, of: title, fetch: fetch, notes: &notes)
        case .embedded(let bytes):
            do {
                return AttachedImage(staged: try stage(bytes))
            } catch {
                throw CommandLineError("the photo of \"\(TerminalText.clean(title))\": \(Self.reason(error))")
            }
        }
    }

    /// Why image bytes were not taken, in words: what they are not, or that they are too large.
    static func reason(_ error: any Error) -> String {
        if let storeError = error as? StoreError {
            switch storeError.kind {
            case .imageNotRecognised: return "it is not a JPEG, PNG, GIF or WebP image"
            case .imageTooLarge(_, let size, let limit):
                return "it is \(size) bytes, over the \(limit)-byte limit; raise image.max_bytes with `recipes config set`"
            default: break
            }
        }
        return (error as? any LocalizedError)?.errorDescription ?? "\(error)"
    }

    /// Image bytes (a Paprika photo, a downloaded image) staged as `image set` stages a file: written to a private
    /// temporary file first, its bytes checked.
    private func stage(_ bytes: Data) throws -> StagedImage {
        let temporary = FileManager.default.temporaryDirectory
            .appendingPathComponent("recipes-image-\(getpid())-\(UUID().lowercasedString)").path
        defer { try? FileManager.default.removeItem(atPath: temporary) }
        guard FileManager.default.createFile(atPath: temporary, contents: bytes, attributes: [.posixPermissions: 0o600]) else {
            throw CommandLineError("it could not be written to \(temporary)")
        }
        return try store.media.stage(from: temporary, maxBytes: maxImageBytes)
    }

    /// Fetches the image at `url` and stages a copy (its bytes checked as `image set` checks them); on failure the
    /// recipe keeps the address and `notes` says why.
    private func download(_ url: String, of title: String, fetch: PageFetch, notes: inout [String]) async -> AttachedImage {
        do {
            let image = try await fetch.fetch(url, maxBytes: Int(clamping: maxImageBytes), accept: "image/*")
            return AttachedImage(staged: try stage(image.data))
        } catch {
            notes.append("the image of \"\(TerminalText.clean(title))\" (\(url)) was not fetched: \(Self.reason(error)); the recipe keeps its address")
            return AttachedImage(remote: url)
        }
    }
}
