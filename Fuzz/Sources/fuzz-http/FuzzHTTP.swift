import FCMEngine
import FCMHTTPAPI
import FCMHTTPPort
import FuzzDriver

/// HTTP send bodies: legacy JSON and form-encoded, and v1, read as the routes do.
@_cdecl("fuzz_http_main")
public func fuzzHTTPMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(fuzzHTTP)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTP(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let body = Array(UnsafeBufferPointer(start: data, count: size))
    for type in ["application/json", "application/x-www-form-urlencoded"] {
        let request = HTTPRequestParts(method: "POST", path: "/fcm/send", headers: ["Content-Type": type], body: body)
        _ = LegacySendReader.read(request, sender: "123456789012")
    }
    _ = V1MessageReader.read(body, sender: "123456789012")
    return 0
}
