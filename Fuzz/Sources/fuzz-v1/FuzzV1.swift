import FCMHTTPAPI
import FCMJSON
import FuzzDriver

/// HTTP v1 bodies read against Google's schema: random bytes and mutations of valid
/// messages. Nothing crashes, and every refusal is a 400 INVALID_ARGUMENT whose message
/// says what is wrong and whose field violations, when it has them, each say it too.
@_cdecl("fuzz_v1_main")
public func fuzzV1Main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(fuzzV1)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzV1(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let body = Array(UnsafeBufferPointer(start: data, count: size))
    guard case .failure(let error) = V1MessageReader.read(body, sender: "123456789012") else { return 0 }
    let reply = error.reply
    precondition(reply.status == 400 && error.status == "INVALID_ARGUMENT", "a refusal that is not 400: \(reply.body)")
    guard let parsed = try? JSONParser.parse(Array(reply.body.utf8)), case .object(let root) = parsed,
        case .object(let status)? = root["error"], case .string(let message)? = status["message"], !message.isEmpty
    else { preconditionFailure("a refusal without a message: \(reply.body)") }
    if case .array(let details)? = status["details"] {
        for case .object(let detail) in details {
            guard case .array(let violations)? = detail["fieldViolations"] else { continue }
            for case .object(let violation) in violations {
                precondition(violation["description"]?.string?.isEmpty == false, "a violation that says nothing")
                if let field = violation["field"] {
                    precondition(field.string?.isEmpty == false, "an empty field path")
                }
            }
        }
    }
    return 0
}
