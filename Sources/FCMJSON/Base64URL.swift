/// Base64 with the URL-safe alphabet and no padding, as JWTs and Web Push keys use
/// it. Decoding also takes the standard alphabet's `+` and `/` and trailing `=`
/// padding, as browsers and push libraries write keys either way.
public enum Base64URL {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Each byte value's six bits, or 0xFF for a byte outside both alphabets.
    static let sextets: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(value) }
        table[Int(UInt8(ascii: "+"))] = 62
        table[Int(UInt8(ascii: "/"))] = 63
        return table
    }()

    /// Whether `byte` is one of the URL-safe alphabet's 64 characters.
    public static func isInAlphabet(_ byte: UInt8) -> Bool {
        byte != UInt8(ascii: "+") && byte != UInt8(ascii: "/") && sextets[Int(byte)] != 0xFF
    }

    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        let bytes = Array(bytes)
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index < bytes.count {
            let b0 = bytes[index]
            let b1 = index + 1 < bytes.count ? bytes[index + 1] : 0
            let b2 = index + 2 < bytes.count ? bytes[index + 2] : 0
            out.append(alphabet[Int(b0 >> 2)])
            out.append(alphabet[Int((b0 & 0x03) << 4 | b1 >> 4)])
            if index + 1 < bytes.count { out.append(alphabet[Int((b1 & 0x0F) << 2 | b2 >> 6)]) }
            if index + 2 < bytes.count { out.append(alphabet[Int(b2 & 0x3F)]) }
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of `text`, or nil when it is not base64 (a byte outside the
    /// alphabets, padding in the middle, or a length no encoding gives).
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        var digits = Array(text.utf8)
        while digits.last == UInt8(ascii: "=") { digits.removeLast() }
        guard digits.count % 4 != 1 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(digits.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for digit in digits {
            let value = sextets[Int(digit)]
            guard value != 0xFF else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        return out
    }
}
