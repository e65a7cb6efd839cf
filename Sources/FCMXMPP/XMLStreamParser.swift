import CExpat

/// What the XML stream yields.
public enum XMLStreamEvent: Sendable, Equatable {
    /// The opening `<stream:stream …>` with its attributes.
    case streamStart(XMLElement)
    /// A whole top-level element inside the stream.
    case stanza(XMLElement)
    /// `</stream:stream>`.
    case streamEnd
}

/// Why the stream cannot be read on.
public struct XMLStreamError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The XMPP stream error condition to answer with.
    public var condition: String
    public var detail: String
    public var description: String { "\(condition): \(detail)" }
}

/// A push parser for an XMPP stream on libexpat.
///
///     bytes ──feed──▶ expat ──callbacks──▶ element tree ──▶ [streamStart | stanza | streamEnd]
///
/// Bytes may be split anywhere: expat keeps partial tokens. Only whole top-level
/// elements (depth 1) come out. DTDs and entity declarations are refused (no XML
/// bombs), and a stanza larger than `maxStanzaBytes` is refused before it is
/// buffered whole. `reset()` starts a new document, for the stream restart after
/// authentication.
public final class XMLStreamParser {
    public let maxStanzaBytes: Int
    private var parser: XML_Parser?
    // Changed by expat's callbacks, one at a time, inside `feed` on the thread that
    // feeds: no access can overlap another, and the runtime's check of each (every
    // element of every stanza) is left out.
    @exclusivity(unchecked) fileprivate var stack: [XMLElement] = []
    @exclusivity(unchecked) fileprivate var events: [XMLStreamEvent] = []
    fileprivate var failure: XMLStreamError?
    fileprivate var stanzaStart: Int64 = -1
    fileprivate var streamOpened = false
    private var fed: Int64 = 0

    public init(maxStanzaBytes: Int = 65_536) {
        self.maxStanzaBytes = maxStanzaBytes
        reset()
    }

    deinit {
        if let parser { XML_ParserFree(parser) }
    }

    /// Starts a new document (the stream restart).
    public func reset() {
        if let parser { XML_ParserFree(parser) }
        parser = XML_ParserCreate(nil)
        stack = []
        events = []
        failure = nil
        stanzaStart = -1
        streamOpened = false
        fed = 0
        guard let parser else { return }
        XML_SetUserData(parser, Unmanaged.passUnretained(self).toOpaque())
        XML_SetParamEntityParsing(parser, XML_PARAM_ENTITY_PARSING_NEVER)
        XML_SetElementHandler(parser, startElement, endElement)
        XML_SetCharacterDataHandler(parser, characters)
        XML_SetStartDoctypeDeclHandler(parser, refuseDoctype)
        XML_SetEntityDeclHandler(parser, refuseEntity)
    }

    /// Feeds bytes; returns what completed. Throws when the stream is not XML the
    /// emulator will read; the connection should then end with a stream error.
    public func feed(_ bytes: [UInt8]) throws(XMLStreamError) -> [XMLStreamEvent] {
        guard let parser else { throw XMLStreamError(condition: "internal-server-error", detail: "no parser") }
        if let failure { throw failure }
        fed += Int64(bytes.count)
        let status = bytes.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: max(1, buffer.count)) {
                XML_Parse(parser, $0, Int32(buffer.count), 0)
            }
        }
        if let failure { throw failure }
        if status == XML_STATUS_ERROR {
            let code = XML_GetErrorCode(parser)
            let message = XML_ErrorString(code).map { String(cString: $0) } ?? "malformed XML"
            let line = XML_GetCurrentLineNumber(parser)
            let column = XML_GetCurrentColumnNumber(parser)
            let error = XMLStreamError(
                condition: "not-well-formed", detail: "\(message) at line \(line), column \(column)")
            failure = error
            throw error
        }
        if stanzaStart >= 0, fed - stanzaStart > Int64(maxStanzaBytes) {
            let error = XMLStreamError(
                condition: "policy-violation", detail: "stanza larger than \(maxStanzaBytes) bytes")
            failure = error
            throw error
        }
        let out = events
        events = []
        return out
    }

    fileprivate func stop(_ error: XMLStreamError) {
        if failure == nil { failure = error }
        if let parser { XML_StopParser(parser, XML_FALSE) }
    }

    fileprivate var position: Int64 {
        guard let parser else { return 0 }
        return Int64(XML_GetCurrentByteIndex(parser))
    }
}

private func owner(_ data: UnsafeMutableRawPointer?) -> XMLStreamParser {
    Unmanaged<XMLStreamParser>.fromOpaque(data!).takeUnretainedValue()
}

private func startElement(
    _ data: UnsafeMutableRawPointer?, _ name: UnsafePointer<XML_Char>?,
    _ attributes: UnsafeMutablePointer<UnsafePointer<XML_Char>?>?
) {
    let parser = owner(data)
    var element = XMLElement(name: String(cString: name!))
    var index = 0
    while let key = attributes?[index], let value = attributes?[index + 1] {
        element.attributes.append((String(cString: key), String(cString: value)))
        index += 2
    }
    if parser.stack.isEmpty && parser.events.isEmpty && parser.stanzaStart == -1 && element.localName == "stream"
        && !parser.streamOpened
    {
        parser.streamOpened = true
        parser.events.append(.streamStart(element))
        return
    }
    if !parser.streamOpened {
        parser.stop(
            XMLStreamError(condition: "invalid-namespace", detail: "expected <stream:stream>, got <\(element.name)>"))
        return
    }
    if parser.stack.isEmpty {
        parser.stanzaStart = parser.position
    } else if parser.stanzaStart >= 0, parser.position - parser.stanzaStart > Int64(parser.maxStanzaBytes) {
        parser.stop(
            XMLStreamError(condition: "policy-violation", detail: "stanza larger than \(parser.maxStanzaBytes) bytes"))
        return
    }
    if parser.stack.count >= 32 {
        parser.stop(XMLStreamError(condition: "policy-violation", detail: "elements nested deeper than 32"))
        return
    }
    parser.stack.append(element)
}

private func endElement(_ data: UnsafeMutableRawPointer?, _ name: UnsafePointer<XML_Char>?) {
    let parser = owner(data)
    guard let element = parser.stack.popLast() else {
        parser.events.append(.streamEnd)
        return
    }
    if parser.stack.isEmpty {
        parser.events.append(.stanza(element))
        parser.stanzaStart = -1
    } else {
        parser.stack[parser.stack.count - 1].children.append(element)
    }
}

private func characters(_ data: UnsafeMutableRawPointer?, _ text: UnsafePointer<XML_Char>?, _ length: Int32) {
    let parser = owner(data)
    guard !parser.stack.isEmpty, let text else { return }
    let buffer = UnsafeRawBufferPointer(start: text, count: Int(length))
    parser.stack[parser.stack.count - 1].text += String(decoding: buffer, as: UTF8.self)
    if parser.stanzaStart >= 0, parser.position - parser.stanzaStart > Int64(parser.maxStanzaBytes) {
        parser.stop(
            XMLStreamError(condition: "policy-violation", detail: "stanza larger than \(parser.maxStanzaBytes) bytes"))
    }
}

private func refuseDoctype(
    _ data: UnsafeMutableRawPointer?, _ name: UnsafePointer<XML_Char>?, _ systemID: UnsafePointer<XML_Char>?,
    _ publicID: UnsafePointer<XML_Char>?, _ internalSubset: Int32
) {
    owner(data).stop(XMLStreamError(condition: "restricted-xml", detail: "a DTD is not allowed in an XMPP stream"))
}

private func refuseEntity(
    _ data: UnsafeMutableRawPointer?, _ name: UnsafePointer<XML_Char>?, _ isParameter: Int32,
    _ value: UnsafePointer<XML_Char>?, _ length: Int32, _ base: UnsafePointer<XML_Char>?,
    _ systemID: UnsafePointer<XML_Char>?, _ publicID: UnsafePointer<XML_Char>?, _ notation: UnsafePointer<XML_Char>?
) {
    owner(data).stop(XMLStreamError(condition: "restricted-xml", detail: "entity declarations are not allowed"))
}
