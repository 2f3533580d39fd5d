import Foundation

/// A zip archive read from its bytes (PKWARE's APPNOTE): its central directory lists the entries, each stored or
/// deflated, and an entry's contents are unpacked on demand with their size and CRC-32 checked.
///
/// Refused with a message saying why, before anything is unpacked: what is not a zip archive or is cut short, an
/// archive split over several disks, zip64 (entries or archives over 4 GiB, or more than 65,535 entries), encrypted
/// entries, other compression methods, an entry whose data lies outside the archive, and an archive whose entries
/// would unpack to more than `Limits` allow (a zip bomb is refused from its directory, and an entry that unpacks to
/// more than its directory says is stopped at that size).
public struct ZipArchive: Sendable {
    /// How large an archive's entries may be once unpacked.
    public struct Limits: Sendable {
        /// The most one entry may unpack to.
        public var entryBytes: Int
        /// The most all entries together may unpack to.
        public var totalBytes: Int

        /// Creates limits.
        public init(entryBytes: Int, totalBytes: Int) {
            self.entryBytes = entryBytes
            self.totalBytes = totalBytes
        }
    }

    /// One file of the archive, as its central directory describes it.
    public struct Entry: Sendable, Equatable {
        /// Its path inside the archive.
        public var name: String
        /// Its size unpacked.
        public var size: Int
        let method: UInt16
        let crc: UInt32
        let compressedSize: Int
        let headerOffset: Int

        /// Whether it is a folder rather than a file.
        public var isFolder: Bool { name.hasSuffix("/") }
    }

    /// The entries, in the order of the central directory.
    public let entries: [Entry]
    private let bytes: Data

    /// Whether `data` begins as a zip archive does (a local file header, or the end record of an empty archive).
    public static func looksLikeZip(_ data: Data) -> Bool {
        data.starts(with: [0x50, 0x4B, 0x03, 0x04]) || data.starts(with: [0x50, 0x4B, 0x05, 0x06])
    }

    /// Reads the central directory of the archive `data`.
    public init(_ data: Data, limits: Limits) throws(ArchiveError) {
        let bytes = data.startIndex == 0 ? data : Data(Array(data))  // offsets from 0
        self.bytes = bytes
        let end = try Self.endRecord(bytes)
        let reader = Reader(bytes: bytes)
        guard reader.u16(end + 4) == 0, reader.u16(end + 6) == 0, reader.u16(end + 8) == reader.u16(end + 10) else {
            throw ArchiveError("it is split over several disks, which cannot be read; make it one archive")
        }
        let count = Int(reader.u16(end + 10))
        let directorySize = Int(reader.u32(end + 12))
        let directoryOffset = Int(reader.u32(end + 16))
        if count == 0xFFFF || directorySize == 0xFFFF_FFFF || directoryOffset == 0xFFFF_FFFF
            || (end >= 20 && reader.u32(end - 20) == 0x0706_4B50) {
            throw ArchiveError("it is a zip64 archive (over 4 GiB or 65,535 entries), which cannot be read")
        }
        guard directoryOffset + directorySize <= end else {
            throw ArchiveError("its central directory lies outside the file (the file is truncated or damaged)")
        }
        var entries: [Entry] = []
        var total = 0
        var at = directoryOffset
        for _ in 0..<count {
            guard at + 46 <= end, reader.u32(at) == 0x0201_4B50 else {
                throw ArchiveError("its central directory is damaged (entry \(entries.count + 1) of \(count) is not where it should be)")
            }
            let flags = reader.u16(at + 8)
            let method = reader.u16(at + 10)
            let crc = reader.u32(at + 16)
            let compressedSize = Int(reader.u32(at + 20))
            let size = Int(reader.u32(at + 24))
            let nameLength = Int(reader.u16(at + 28))
            let extraLength = Int(reader.u16(at + 30))
            let commentLength = Int(reader.u16(at + 32))
            let headerOffset = Int(reader.u32(at + 42))
            guard at + 46 + nameLength + extraLength + commentLength <= end else {
                throw ArchiveError("its central directory is damaged (entry \(entries.count + 1) runs past it)")
            }
            let name = String(decoding: bytes[(at + 46)..<(at + 46 + nameLength)], as: UTF8.self)
            at += 46 + nameLength + extraLength + commentLength
            if compressedSize == 0xFFFF_FFFF || size == 0xFFFF_FFFF || headerOffset == 0xFFFF_FFFF {
                throw ArchiveError("\(name) is a zip64 entry (over 4 GiB), which cannot be read")
            }
            if flags & 0x41 != 0 { throw ArchiveError("\(name) is encrypted (with a password), which cannot be read") }
            guard method == 0 || method == 8 else {
                throw ArchiveError("\(name) is compressed with method \(method); only stored and deflated entries can be read")
            }
            guard method == 8 || compressedSize == size else {
                throw ArchiveError("\(name) is stored with \(compressedSize) bytes but says it has \(size); the archive is damaged")
            }
            if size > limits.entryBytes {
                throw ArchiveError("\(name) would unpack to \(size) bytes, more than the \(ByteCount.describe(limits.entryBytes)) an entry may have")
            }
            total += size
            if total > limits.totalBytes {
                throw ArchiveError("its entries would unpack to more than \(ByteCount.describe(limits.totalBytes)) (a zip bomb?)")
            }
            guard headerOffset + 30 + compressedSize <= directoryOffset else {
                throw ArchiveError("the data of \(name) lies outside the archive (the file is truncated or damaged)")
            }
            entries.append(Entry(name: name, size: size, method: method, crc: crc, compressedSize: compressedSize,
                                 headerOffset: headerOffset))
        }
        self.entries = entries
    }

    /// The contents of `entry`, unpacked, their size and CRC-32 checked against the directory's.
    public func contents(of entry: Entry) throws(ArchiveError) -> Data {
        let reader = Reader(bytes: bytes)
        let header = entry.headerOffset
        guard reader.u32(header) == 0x0403_4B50 else {
            throw ArchiveError("\(entry.name) is not where the directory says (the archive is damaged)")
        }
        let start = header + 30 + Int(reader.u16(header + 26)) + Int(reader.u16(header + 28))
        guard start + entry.compressedSize <= bytes.count else {
            throw ArchiveError("the data of \(entry.name) is cut short (the file is truncated)")
        }
        let packed = bytes[start..<(start + entry.compressedSize)]
        let data: Data
        if entry.method == 0 {
            data = Data(packed)
        } else {
            do {
                data = try Inflate.inflateRaw(Data(packed), expectedBytes: entry.size)
            } catch {
                throw ArchiveError("\(entry.name): \(error.message)")
            }
        }
        let crc = Inflate.crc32(data)
        guard crc == entry.crc else {
            throw ArchiveError("\(entry.name) fails its CRC-32 check (\(hex(crc)), not \(hex(entry.crc))); the archive is damaged")
        }
        return data
    }

    /// Where the end-of-central-directory record begins: searched for from the end, past a comment of at most 64 KiB.
    private static func endRecord(_ bytes: Data) throws(ArchiveError) -> Int {
        guard bytes.count >= 22 else { throw ArchiveError("it is too short to be a zip archive (the file is truncated?)") }
        let reader = Reader(bytes: bytes)
        let lowest = max(0, bytes.count - 22 - 0xFFFF)
        var at = bytes.count - 22
        while at >= lowest {
            if reader.u32(at) == 0x0605_4B50, at + 22 + Int(reader.u16(at + 20)) == bytes.count { return at }
            at -= 1
        }
        throw ArchiveError("it has no zip directory at its end (the file is truncated, or not a zip archive)")
    }

    private func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }

    /// Little-endian numbers at offsets of the archive's bytes (offsets from 0).
    private struct Reader {
        let bytes: Data

        func u16(_ at: Int) -> UInt16 {
            UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8
        }

        func u32(_ at: Int) -> UInt32 {
            UInt32(u16(at)) | UInt32(u16(at + 2)) << 16
        }
    }
}
