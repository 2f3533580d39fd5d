import Foundation

/// The id a recipe has in Mealie: its own UUID when that is a version-4 UUID (all that `recipes` makes, and every id
/// Mealie makes), else a version-4 UUID derived from it, the same every time.
///
/// Mealie's zip import takes only version-4 ids (its model types the id `UUID4`: a version-1 or version-7 id gets a
/// `500` and no recipe). Deriving the id, rather than drawing a random one, keeps the creation idempotent without
/// recording anything before the import: after a `kill -9` the next attempt sends the same id
/// (docs/mealie.md, "Creating exactly once").
public enum MealieRecipeID {
    /// The Mealie id of the recipe whose UUID is `uuid`.
    public static func of(_ uuid: UUID) -> UUID {
        if isVersion4(uuid) { return uuid }
        var bytes = [UInt8](repeating: 0, count: 16)
        withUnsafeBytes(of: uuid.uuid) { bytes = Array($0) }
        var high = bytes[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        var low = bytes[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        // Two rounds of a 64-bit finaliser (SplitMix64's) across both halves: every input bit reaches every output
        // bit, so ids that differ only in the bits the version overwrites still map apart.
        for _ in 0..<2 {
            high = mix(high ^ 0x6D65_616C_6965_2D69) ^ low // "mealie-i"
            low = mix(low ^ 0x642D_7631_2D72_6563) ^ high // "d-v1-rec"
        }
        var derived = (0..<8).map { UInt8(truncatingIfNeeded: high >> (56 - 8 * $0)) }
            + (0..<8).map { UInt8(truncatingIfNeeded: low >> (56 - 8 * $0)) }
        derived[6] = derived[6] & 0x0F | 0x40 // version 4
        derived[8] = derived[8] & 0x3F | 0x80 // RFC 4122 variant
        return UUID(uuid: (derived[0], derived[1], derived[2], derived[3], derived[4], derived[5], derived[6], derived[7],
                           derived[8], derived[9], derived[10], derived[11], derived[12], derived[13], derived[14], derived[15]))
    }

    /// Whether `uuid` is an RFC 4122 version-4 UUID, as Mealie's `UUID4` requires.
    public static func isVersion4(_ uuid: UUID) -> Bool {
        uuid.uuid.6 >> 4 == 4 && uuid.uuid.8 >> 6 == 0b10
    }

    private static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
