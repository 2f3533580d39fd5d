import Archives
import Foundation
import Testing

/// Runs python3 with `script`, the path of a fresh file as `sys.argv[1]`, and returns what it wrote there: archives
/// made by Python's own zipfile and gzip modules, not by the reader under test.
func pythonBytes(_ script: String) throws -> Data {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("zip-tests-\(getpid())-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let output = folder.appendingPathComponent("out").path
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", script, output]
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw ArchiveError("python3 exited \(process.terminationStatus)") }
    return try Data(contentsOf: URL(fileURLWithPath: output))
}

@Suite("Reading zip archives and gzip data, damaged ones and bombs refused")
struct ZipArchiveTests {
    static let limits = ZipArchive.Limits(entryBytes: 1 << 20, totalBytes: 4 << 20)

    /// Two deflated entries, a stored one and a folder, names in UTF-8.
    static let goodArchive = """
        import sys, zipfile
        with zipfile.ZipFile(sys.argv[1], "w") as z:
            z.writestr("recipes/Crème brûlée.txt", "Crème brûlée\\n" * 200, compress_type=zipfile.ZIP_DEFLATED)
            z.writestr("recipes/empty.txt", "", compress_type=zipfile.ZIP_DEFLATED)
            z.writestr("stored.bin", bytes(range(256)), compress_type=zipfile.ZIP_STORED)
            z.writestr("folder/", "")
        """

    @Test("a good archive's entries are listed and unpack to what was packed, deflated and stored")
    func goodArchive() throws {
        let archive = try ZipArchive(try pythonBytes(Self.goodArchive), limits: Self.limits)
        #expect(archive.entries.map(\.name) == ["recipes/Crème brûlée.txt", "recipes/empty.txt", "stored.bin", "folder/"])
        #expect(archive.entries.map(\.isFolder) == [false, false, false, true])
        #expect(try archive.contents(of: archive.entries[0]) == Data(String(repeating: "Crème brûlée\n", count: 200).utf8))
        #expect(try archive.contents(of: archive.entries[1]).isEmpty)
        #expect(try archive.contents(of: archive.entries[2]) == Data((0...255).map { UInt8($0) }))
        #expect(ZipArchive.looksLikeZip(try pythonBytes(Self.goodArchive)))
    }

    @Test("an entry whose bytes were changed fails its CRC-32 check, by name")
    func badCRC() throws {
        var bytes = try pythonBytes("""
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1], "w") as z:
                z.writestr("a.txt", "hello, stored world", compress_type=zipfile.ZIP_STORED)
            """)
        // The stored data follows the 30-byte local header and the 5-byte name.
        bytes[35] ^= 0x20
        let archive = try ZipArchive(bytes, limits: Self.limits)
        #expect(throws: ArchiveError("a.txt fails its CRC-32 check (\(hex(bytes: bytes, entry: "a.txt"))); the archive is damaged")) {
            try archive.contents(of: archive.entries[0])
        }
    }

    /// `(actual), not (expected)` for the one entry of `bytes` whose first byte was flipped: computed here the same way.
    func hex(bytes: Data, entry: String) -> String {
        let data = bytes[35..<(35 + 19)]
        let actual = String(format: "%08x", Inflate.crc32(Data(data)))
        var flipped = Data(data)
        flipped[0] ^= 0x20
        return "\(actual), not \(String(format: "%08x", Inflate.crc32(flipped)))"
    }

    @Test("a truncated archive is refused, wherever it was cut", arguments: [0.3, 0.7, 0.99])
    func truncated(_ fraction: Double) throws {
        let bytes = try pythonBytes(Self.goodArchive)
        let cut = bytes.prefix(Int(Double(bytes.count) * fraction))
        do {
            _ = try ZipArchive(Data(cut), limits: Self.limits)
            Issue.record("a truncated archive was read")
        } catch {
            #expect(error.message.contains("truncated"), "\(error.message)")
        }
    }

    @Test("a deflated entry damaged inside is refused, not read as other text")
    func deflateCutShort() throws {
        var bytes = try pythonBytes("""
            import sys, zipfile, os
            with zipfile.ZipFile(sys.argv[1], "w") as z:
                z.writestr("r.txt", os.urandom(4000).hex(), compress_type=zipfile.ZIP_DEFLATED)
            """)
        // Zero the second half of the compressed data (local header 30 + name 5, the data up to the directory).
        let directory = bytes.count - 22 - 51
        for index in (35 + (directory - 35) / 2)..<directory { bytes[index] = 0 }
        let archive = try ZipArchive(bytes, limits: Self.limits)
        #expect(throws: ArchiveError.self) { _ = try archive.contents(of: archive.entries[0]) }
    }

    @Test("a zip bomb is refused from its directory before anything is unpacked; an entry larger than it says is stopped")
    func bombs() throws {
        let bomb = try pythonBytes("""
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
                for i in range(6):
                    z.writestr("zeros-%d.bin" % i, bytes(1 << 20))
            """)
        #expect(bomb.count < 64 << 10, "6 MiB of zeros pack small")
        #expect(throws: ArchiveError("its entries would unpack to more than 4 MiB (a zip bomb?)")) {
            _ = try ZipArchive(bomb, limits: Self.limits)
        }
        #expect(throws: ArchiveError("zeros-0.bin would unpack to 1048576 bytes, more than the 512 KiB an entry may have")) {
            _ = try ZipArchive(bomb, limits: ZipArchive.Limits(entryBytes: 512 << 10, totalBytes: 8 << 20))
        }
        // The directory says 1 KiB; the data unpacks to 1 MiB.
        var liar = try pythonBytes("""
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
                z.writestr("liar.bin", bytes(1 << 20))
            """)
        let directory = liar.count - 22 - 54
        liar.replaceSubrange((directory + 24)..<(directory + 28), with: [0x00, 0x04, 0x00, 0x00])
        let archive = try ZipArchive(liar, limits: Self.limits)
        #expect(throws: ArchiveError("liar.bin: it unpacks to more than the 1024 bytes its header says; the archive is damaged")) {
            _ = try archive.contents(of: archive.entries[0])
        }
    }

    @Test("encrypted entries, other methods and zip64 are refused with what cannot be read")
    func unreadableKinds() throws {
        let plain = try pythonBytes("""
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
                z.writestr("s.txt", "secret")
            """)
        let directory = plain.count - 22 - 51
        var encrypted = plain
        encrypted[directory + 8] |= 0x01
        #expect(throws: ArchiveError("s.txt is encrypted (with a password), which cannot be read")) {
            _ = try ZipArchive(encrypted, limits: Self.limits)
        }
        var bzip2 = plain
        bzip2[directory + 10] = 12
        #expect(throws: ArchiveError("s.txt is compressed with method 12; only stored and deflated entries can be read")) {
            _ = try ZipArchive(bzip2, limits: Self.limits)
        }
        // What an archive past zip's 32-bit limits says in its directory: sizes, or the count of entries, all ones.
        var zip64Entry = plain
        zip64Entry.replaceSubrange((directory + 20)..<(directory + 24), with: [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(throws: ArchiveError("s.txt is a zip64 entry (over 4 GiB), which cannot be read")) {
            _ = try ZipArchive(zip64Entry, limits: Self.limits)
        }
        var zip64Count = plain
        zip64Count.replaceSubrange((plain.count - 12)..<(plain.count - 10), with: [0xFF, 0xFF])
        zip64Count.replaceSubrange((plain.count - 14)..<(plain.count - 12), with: [0xFF, 0xFF])
        #expect(throws: ArchiveError("it is a zip64 archive (over 4 GiB or 65,535 entries), which cannot be read")) {
            _ = try ZipArchive(zip64Count, limits: Self.limits)
        }
        #expect(throws: ArchiveError("it has no zip directory at its end (the file is truncated, or not a zip archive)")) {
            _ = try ZipArchive(Data(String(repeating: "not a zip ", count: 10).utf8), limits: Self.limits)
        }
    }

    @Test("gzip data unpacks with its CRC checked; damaged, truncated and oversized data are refused")
    func gzip() throws {
        let good = try pythonBytes("""
            import sys, gzip
            open(sys.argv[1], "wb").write(gzip.compress('{"name": "Crème brûlée"}'.encode()))
            """)
        #expect(try Inflate.gunzip(good, maxBytes: 1 << 20) == Data(#"{"name": "Crème brûlée"}"#.utf8))
        var badCRC = good
        badCRC[badCRC.count - 8] ^= 0xFF
        #expect(throws: ArchiveError("its compressed data is damaged (incorrect data check)")) {
            _ = try Inflate.gunzip(badCRC, maxBytes: 1 << 20)
        }
        #expect(throws: ArchiveError("its compressed data is cut short (the file is truncated)")) {
            _ = try Inflate.gunzip(good.prefix(good.count - 6), maxBytes: 1 << 20)
        }
        let bomb = try pythonBytes("""
            import sys, gzip
            open(sys.argv[1], "wb").write(gzip.compress(bytes(8 << 20)))
            """)
        #expect(throws: ArchiveError("it unpacks to more than 1 MiB, more than a recipe can be (a zip bomb?)")) {
            _ = try Inflate.gunzip(bomb, maxBytes: 1 << 20)
        }
        #expect(throws: ArchiveError("not gzip data")) { _ = try Inflate.gunzip(Data("plain text, not gzip".utf8), maxBytes: 100) }
    }

    @Test("CRC-32 is zip's and gzip's", arguments: [("", 0x0000_0000), ("a", 0xE8B7_BE43), ("123456789", 0xCBF4_3926)])
    func crc(_ text: String, _ expected: UInt32) {
        #expect(Inflate.crc32(Data(text.utf8)) == expected)
    }
}
