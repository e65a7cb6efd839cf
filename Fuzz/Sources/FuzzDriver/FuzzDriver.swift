/// libFuzzer's driver, for executables whose `main` SwiftPM provides: each target's
/// entry point hands its one-input function to `LLVMFuzzerRunDriver`.
public typealias FuzzInput = @convention(c) (UnsafePointer<UInt8>, Int) -> CInt

@_silgen_name("LLVMFuzzerRunDriver")
func llvmFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: FuzzInput
) -> CInt

public func runFuzzer(_ callback: FuzzInput) -> CInt {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    return llvmFuzzerRunDriver(&argc, &argv, callback)
}
