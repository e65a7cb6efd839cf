/// How a Web Push body is encrypted: RFC 8291's `aes128gcm`, or the draft's
/// `aesgcm` that older libraries still send (its salt and key in headers).
public enum ContentEncoding: String, Sendable, Codable, CaseIterable {
    case aes128gcm
    case aesgcm

    /// The encoding a `Content-Encoding` header names (its case ignored), or nil.
    public init?(header: String) {
        self.init(rawValue: header.trimmingSpaces.lowercased())
    }
}

/// Why a body did not decrypt: what a browser's push service client finds, said
/// so that the app server's developer knows what to change.
public struct DecryptionFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public var reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}

extension StringProtocol {
    /// Without spaces and tabs at either end (a header's value as it means it).
    public var trimmingSpaces: String {
        var text = Substring(self)
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return String(text)
    }
}

/// Header parameters as Web Push writes them: `name=value` pairs separated by `;` or
/// `,` (Chrome before 52 needed `;`, the RFCs say `,`), names compared without case.
public struct HeaderParameters: Sendable, Equatable {
    public var pairs: [(name: String, value: String)]

    public init(_ header: String?) {
        pairs = []
        guard let header else { return }
        for part in header.split(whereSeparator: { $0 == ";" || $0 == "," }) {
            guard let equals = part.firstIndex(of: "=") else { continue }
            let name = part[..<equals].trimmingSpaces.lowercased()
            var value = part[part.index(after: equals)...].trimmingSpaces
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 {
                value = String(value.dropFirst().dropLast())
            }
            pairs.append((name, value))
        }
    }

    /// The first value of the parameter `name`.
    public subscript(name: String) -> String? {
        pairs.first { $0.name == name }?.value
    }

    public static func == (lhs: HeaderParameters, rhs: HeaderParameters) -> Bool {
        lhs.pairs.elementsEqual(rhs.pairs) { $0.name == $1.name && $0.value == $1.value }
    }
}
