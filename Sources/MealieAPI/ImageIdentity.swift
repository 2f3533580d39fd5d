import Foundation

/// How the sync tells "the same image" in Mealie, which stores every upload re-encoded as WebP (quality 70): the bytes
/// Mealie serves are never the bytes sent, so they cannot be compared with the local image. Mealie's encoder is
/// deterministic (the same upload gives the same WebP) and re-encodes what it served (a served WebP sent back comes
/// out different), so the image's identity in Mealie is the SHA-256 of the `original.webp` it serves, recorded when
/// the sync confirms an image (after its own upload, or when it takes Mealie's). Plain functions, tested from
/// tables (`ImageIdentityTests`); the evidence is in docs/mealie.md, "Images".
public enum ImageIdentity {
    /// What the sync records of a recipe's image in Mealie once it confirmed it.
    public struct Seen: Sendable, Equatable, Codable {
        /// Mealie's `image` cache key then (random at each upload, so a different key means another upload).
        public var key: String
        /// The `ETag` Mealie served `original.webp` with then: it changes whenever the file is written again.
        public var etag: String
        /// The SHA-256 of the `original.webp` bytes Mealie served then, in lower-case hex.
        public var sha256: String

        /// Creates a record.
        public init(key: String, etag: String, sha256: String) {
            self.key = key
            self.etag = etag
            self.sha256 = sha256
        }
    }

    /// What to do about a pulled recipe's image.
    public enum Step: Sendable, Equatable {
        /// Mealie's recipe has no image.
        case noImage
        /// Ask for the `ETag` only (`imageProbe`: one byte): the key is the one recorded, which another upload keeps
        /// once in 256 times.
        case probe
        /// Download it and compare its SHA-256 with the one recorded.
        case download
        /// It is the image recorded: nothing to fetch.
        case unchanged
    }

    /// Whether the local image must be uploaded: it exists and is not the one last confirmed in Mealie (uploaded, or
    /// taken from Mealie: then the local bytes are Mealie's WebP and their SHA-256 is the one confirmed).
    public static func needsUpload(localSHA256: String?, confirmedSHA256: String?) -> Bool {
        guard let localSHA256 else { return false }
        return localSHA256 != confirmedSHA256
    }

    /// The first step for a recipe whose listing shows image key `key` (nil: none), given what was recorded.
    public static func firstStep(seen: Seen?, key: String?) -> Step {
        guard let key else { return .noImage }
        guard let seen else { return .download }
        return key == seen.key ? .probe : .download
    }

    /// After the probe answered with `etag` (nil when it carried none): the same file, or download it.
    public static func afterProbe(seen: Seen, etag: String?) -> Step {
        etag != nil && etag == seen.etag ? .unchanged : .download
    }

    /// After a download of bytes hashing to `sha256`: whether they are the image recorded (the same file written
    /// again, or the same upload made again) or a new one to take.
    public static func isRecorded(sha256: String, seen: Seen?) -> Bool {
        sha256 == seen?.sha256
    }
}
