import FCMEngine
import FCMJSON

/// One XML element of a stanza, with its attributes in order, children and text.
public struct XMLElement: Sendable, Equatable {
    /// The name as written, prefix included (`message`, `data:gcm`).
    public var name: String
    public var attributes: [(name: String, value: String)]
    public var children: [XMLElement]
    public var text: String

    public init(
        name: String, attributes: [(name: String, value: String)] = [], children: [XMLElement] = [], text: String = ""
    ) {
        self.name = name
        self.attributes = attributes
        self.children = children
        self.text = text
    }

    public static func == (lhs: XMLElement, rhs: XMLElement) -> Bool {
        lhs.name == rhs.name && lhs.attributes.map(\.name) == rhs.attributes.map(\.name)
            && lhs.attributes.map(\.value) == rhs.attributes.map(\.value) && lhs.children == rhs.children
            && lhs.text == rhs.text
    }

    /// The name without its prefix (`gcm` for `data:gcm`).
    public var localName: String {
        name.split(separator: ":", maxSplits: 1).last.map(String.init) ?? name
    }

    public func attribute(_ name: String) -> String? {
        attributes.first { $0.name == name }?.value
    }

    /// The first child with this local name.
    public func child(_ localName: String) -> XMLElement? {
        children.first { $0.localName == localName }
    }

    /// The namespace the element declares for itself (`xmlns` or `xmlns:prefix`).
    public var namespace: String? {
        let parts = name.split(separator: ":", maxSplits: 1)
        return parts.count == 2 ? attribute("xmlns:\(parts[0])") : attribute("xmlns")
    }
}

/// Escaping for text and attribute values written into the stream.
public enum XMLEscape {
    public static func text(_ raw: String) -> String {
        // Most text needs no escaping: return it as it is.
        if !raw.containsUTF8(where: { $0 == UInt8(ascii: "&") || $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: ">") }) {
            return raw
        }
        var out = ""
        out.reserveCapacity(raw.utf8.count)
        for character in raw {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            default: out.append(character)
            }
        }
        return out
    }

    public static func attribute(_ raw: String) -> String {
        if !raw.utf8.contains(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "'") }) { return text(raw) }
        return text(raw).replacingOccurrences(of: "\"", with: "&quot;").replacingOccurrences(of: "'", with: "&apos;")
    }
}
