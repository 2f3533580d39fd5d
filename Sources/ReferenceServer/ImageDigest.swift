import Crypto
import Foundation

/// The SHA-256 naming of images: 64 lowercase hex digits.
public enum ImageDigest {
    /// The hex SHA-256 of some bytes.
    public static func sha256Hex(of data: Data) -> String {
        hex(SHA256.hash(data: data))
    }

    /// Lowercase hex of a digest.
    static func hex(_ digest: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in digest {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
