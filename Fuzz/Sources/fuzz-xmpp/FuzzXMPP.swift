import FCMXMPP
import FuzzDriver

/// The XMPP stream as an app server sends it: bytes in uneven pieces through the
/// streaming parser and the session rules, which must answer, never crash.
@_cdecl("fuzz_xmpp_main")
public func fuzzXMPPMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(fuzzXMPP)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzXMPP(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let parser = XMLStreamParser(maxStanzaBytes: 4_096)
    var session = XMPPSession(keys: ["123456789012": "key"], streamID: "s", resource: "r")
    var offset = 0
    var piece = 1
    while offset < bytes.count {
        let end = min(bytes.count, offset + piece)
        do {
            for event in try parser.feed(Array(bytes[offset..<end])) { _ = session.handle(event) }
        } catch {
            _ = session.streamError("not-well-formed", "\(error)")
            return 0
        }
        offset = end
        piece = piece % 7 + 1
    }
    return 0
}
