import FCMEngine
import FCMLegacyFields
import FCMXMPP
import FuzzDriver

/// Message JSON: the parser, the legacy field rules, and the CCS reader on top.
@_cdecl("fuzz_json_main")
public func fuzzJSONMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(fuzzJSON)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    if case .success(let object) = LegacyFields.object(bytes) {
        _ = try? LegacyFields.request(object, sender: "123456789012", messageID: "m")
        for member in object.members { _ = member.value.text }
    }
    _ = CCSReader.read(String(decoding: bytes, as: UTF8.self), sender: "123456789012")
    return 0
}
