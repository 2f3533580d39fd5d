import CZlib
import Foundation

/// Why an archive or a compressed file could not be read: one line saying what is wrong (the caller names the file
/// and says what to do).
public struct ArchiveError: Error, Sendable, Equatable {
    /// The message.
    public var message: String

    /// Creates an archive error.
    public init(_ message: String) { self.message = message }
}

/// zlib's inflate, with the output bounded: what a deflate stream (a zip entry) or a gzip file unpacks to.
public enum Inflate {
    /// What `data`, a gzip file (one member, its CRC-32 and length checked by zlib), unpacks to; throws when it is not
    /// gzip, is damaged or cut short, or would unpack to more than `maxBytes`.
    public static func gunzip(_ data: Data, maxBytes: Int) throws(ArchiveError) -> Data {
        guard data.count >= 18, data[data.startIndex] == 0x1F, data[data.startIndex + 1] == 0x8B else {
            throw ArchiveError("not gzip data")
        }
        // 16 + 15: a gzip wrapper around a window of 2^15 bytes (zlib's MAX_WBITS).
        return try inflate(data, windowBits: 16 + 15, maxBytes: maxBytes, expected: nil)
    }

    /// What `data`, a raw deflate stream, unpacks to: exactly `expectedBytes`, else it throws.
    static func inflateRaw(_ data: Data, expectedBytes: Int) throws(ArchiveError) -> Data {
        try inflate(data, windowBits: -15, maxBytes: expectedBytes, expected: expectedBytes)
    }

    /// How a run of inflate ended.
    private enum Ending {
        case streamEnd
        case overBound
        case cutShort
        case failed(Int32)
    }

    private static func inflate(_ data: Data, windowBits: Int32, maxBytes: Int, expected: Int?) throws(ArchiveError) -> Data {
        var stream = z_stream()
        guard recipes_inflate_init2(&stream, windowBits) == Z_OK else { throw ArchiveError("zlib could not start") }
        defer { inflateEnd(&stream) }
        var output = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        let ending: Ending = data.withUnsafeBytes { input in
            stream.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: Bytef.self).baseAddress)
            stream.avail_in = uInt(input.count)
            while true {
                let (result, produced) = buffer.withUnsafeMutableBufferPointer { out -> (Int32, Int) in
                    stream.next_out = out.baseAddress
                    stream.avail_out = uInt(out.count)
                    let result = CZlib.inflate(&stream, Z_NO_FLUSH)
                    return (result, out.count - Int(stream.avail_out))
                }
                if output.count + produced > maxBytes { return .overBound }
                output.append(contentsOf: buffer[0..<produced])
                switch result {
                case Z_STREAM_END: return .streamEnd
                case Z_OK where produced == 0 && stream.avail_in == 0, Z_BUF_ERROR: return .cutShort
                case Z_OK: continue
                default: return .failed(result)
                }
            }
        }
        switch ending {
        case .streamEnd:
            if let expected, output.count != expected {
                throw ArchiveError("it unpacks to \(output.count) bytes, not the \(expected) its header says; the archive is damaged")
            }
            return output
        case .overBound:
            if let expected {
                throw ArchiveError("it unpacks to more than the \(expected) bytes its header says; the archive is damaged")
            }
            throw ArchiveError("it unpacks to more than \(ByteCount.describe(maxBytes)), more than a recipe can be (a zip bomb?)")
        case .cutShort:
            throw ArchiveError("its compressed data is cut short (the file is truncated)")
        case .failed(Z_DATA_ERROR):
            let reason = stream.msg.map { String(cString: $0) } ?? "invalid data"
            throw ArchiveError("its compressed data is damaged (\(reason))")
        case .failed(Z_MEM_ERROR):
            throw ArchiveError("there was not enough memory to unpack it")
        case .failed(let status):
            throw ArchiveError("zlib could not unpack it (error \(status))")
        }
    }

    /// The CRC-32 of `data`, as zip and gzip compute it.
    public static func crc32(_ data: Data) -> UInt32 {
        data.withUnsafeBytes { bytes -> UInt32 in
            var crc: uLong = CZlib.crc32(0, nil, 0)
            var rest = UnsafeRawBufferPointer(bytes)
            // zlib takes at most 4 GiB per call (uInt).
            while !rest.isEmpty {
                let count = min(rest.count, 1 << 30)
                crc = CZlib.crc32(crc, rest.baseAddress!.assumingMemoryBound(to: Bytef.self), uInt(count))
                rest = UnsafeRawBufferPointer(rebasing: rest[count...])
            }
            return UInt32(truncatingIfNeeded: crc)
        }
    }
}

/// Byte counts as a person reads them: `64 MiB`, `512 KiB`, `300 bytes`.
public enum ByteCount {
    public static func describe(_ bytes: Int) -> String {
        if bytes >= 1 << 30, bytes % (1 << 30) == 0 { return "\(bytes >> 30) GiB" }
        if bytes >= 1 << 20, bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
        if bytes >= 1 << 10, bytes % (1 << 10) == 0 { return "\(bytes >> 10) KiB" }
        return "\(bytes) bytes"
    }
}
