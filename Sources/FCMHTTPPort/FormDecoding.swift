/// `application/x-www-form-urlencoded` decoding: `+` is a space, `%XX` a byte. The
/// one form reader of the HTTP APIs (the plain-text legacy send and the token endpoint).
package enum FormDecoding {
    package struct Problem: Error, CustomStringConvertible {
        package var description: String
    }

    /// The body's fields in order; an error naming the first that does not decode.
    package static func fields(_ body: [UInt8]) -> Result<[(name: String, value: String)], Problem> {
        var fields: [(name: String, value: String)] = []
        for pair in String(decoding: body, as: UTF8.self).split(separator: "&") where !pair.isEmpty {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(parts[0]) else {
                return .failure(Problem(description: "form field \"\(parts[0])\" is not valid percent-encoding"))
            }
            guard let value = decode(parts.count > 1 ? parts[1] : "") else {
                return .failure(Problem(description: "the value of \(name) is not valid percent-encoding"))
            }
            fields.append((name, value))
        }
        return .success(fields)
    }

    package static func decode(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "+"): bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    return nil
                }
                bytes.append(high << 4 | low)
            default: bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
