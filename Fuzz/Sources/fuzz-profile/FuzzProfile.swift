import FCMProfiles
import FuzzDriver

/// Profiles: any text must parse or give a located error.
@_cdecl("fuzz_profile_main")
public func fuzzProfileMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(fuzzProfile)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzProfile(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    _ = try? ProfileParser.parse(text, file: "fuzz.yaml")
    return 0
}
