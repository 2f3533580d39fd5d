import Foundation

/// The zip archive Mealie's zip import reads (`POST /api/recipes/create/zip`): one `recipe.json` holding the recipe
/// with the client's `id`, stored uncompressed. The only way Mealie 2.0 takes a client-chosen id, which makes the
/// creation idempotent (`RecipeCreation`).
///
/// What the JSON may hold, as the import reads it (docs/mealie.md, "The zip import"): any field of a Mealie recipe;
/// `tags` and `recipe_category` (snake case: `recipeCategory` is not matched) as `{"name","slug"}` objects, found by
/// slug and created when missing; `tools` only as existing tools with their `id`; no `extras` (the import adds
/// `group_id` and `household_id` keys to every object in the document, the extras too); no `rating`. The image is
/// uploaded afterwards, never inside the archive: the import writes it after the recipe's commit, so an import
/// interrupted there leaves a recipe whose image never came.
public enum RecipeArchive {
    /// The archive of `json`, the recipe's document, as `recipe.json`: a zip of one stored entry with a fixed date,
    /// the same bytes for the same document.
    public static func zip(recipeJSON json: Data) -> Data {
        let name = Data("recipe.json".utf8)
        let crc = CRC32.checksum(json)
        let size = UInt32(clamping: json.count)
        var archive = Data()
        // Local file header (APPNOTE 4.3.7): version 2.0, no flags, stored, 1980-01-01 00:00.
        archive.append(le32(0x0403_4B50))
        archive.append(le16(20)); archive.append(le16(0)); archive.append(le16(0))
        archive.append(le16(0)); archive.append(le16(0x21))
        archive.append(le32(crc)); archive.append(le32(size)); archive.append(le32(size))
        archive.append(le16(UInt16(name.count))); archive.append(le16(0))
        archive.append(name)
        archive.append(json)
        let centralStart = UInt32(clamping: archive.count)
        // Central directory header (4.3.12).
        var central = Data()
        central.append(le32(0x0201_4B50))
        central.append(le16(20)); central.append(le16(20)); central.append(le16(0)); central.append(le16(0))
        central.append(le16(0)); central.append(le16(0x21))
        central.append(le32(crc)); central.append(le32(size)); central.append(le32(size))
        central.append(le16(UInt16(name.count))); central.append(le16(0)); central.append(le16(0))
        central.append(le16(0)); central.append(le16(0)); central.append(le32(0)); central.append(le32(0))
        central.append(name)
        archive.append(central)
        // End of central directory (4.3.16).
        archive.append(le32(0x0605_4B50))
        archive.append(le16(0)); archive.append(le16(0)); archive.append(le16(1)); archive.append(le16(1))
        archive.append(le32(UInt32(clamping: central.count))); archive.append(le32(centralStart)); archive.append(le16(0))
        return archive
    }

    private static func le16(_ value: UInt16) -> Data { Data([UInt8(value & 0xFF), UInt8(value >> 8)]) }

    private static func le32(_ value: UInt32) -> Data {
        Data([UInt8(value & 0xFF), UInt8((value >> 8) & 0xFF), UInt8((value >> 16) & 0xFF), UInt8(value >> 24)])
    }
}

/// CRC-32 as zip uses it (ISO-HDLC: polynomial 0xEDB88320 reflected, initial and final XOR 0xFFFFFFFF).
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    static func checksum(_ data: Data) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}
