import FCMEngine
import FCMMCS
import FuzzDriver

/// The MCS stream as a real client sends it: bytes in uneven pieces through the
/// framing and the server's session, which must read, answer or end, never crash; and
/// the engine's writes rendered back, which must frame again.
@_cdecl("fuzz_mcs_main")
public func fuzzMCSMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(fuzzMCS)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMCS(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var session = MCSServerSession(connection: 1)
    var offset = 0
    var piece = 1
    var loggedIn = false
    while offset < bytes.count {
        let end = min(bytes.count, offset + piece)
        for output in session.receive(bytes[offset..<end]) {
            switch output {
            case .input(.login):
                loggedIn = true
                _ = session.render(.loginAccepted, unixMillis: 0)
            case .end: return 0
            default: break
            }
        }
        offset = end
        piece = piece % 11 + 1
    }
    if loggedIn {
        let message = ReceiverMessage(
            messageID: "m", persistentID: "0:1%1", from: "1", category: "c", appData: [KeyValue("k", "v")],
            rawData: bytes, ttl: 1,
            sent: 1)
        _ = session.render(.data(message), unixMillis: 0)
    }
    // The check-in body reader takes the same bytes.
    _ = CheckinCodec.read(bytes)
    return 0
}
