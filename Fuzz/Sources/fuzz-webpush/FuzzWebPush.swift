import Crypto
import FCMEngine
import FCMJSON
import FCMWebPush
import FuzzDriver

/// Web Push requests as the push service reads them: header lines (`name: value`) up
/// to a blank line, then the body. The VAPID reader and its JWT, the encodings'
/// parameters and the aes128gcm header are read alone, then the whole request goes
/// through the engine's push service to a browser.
@_cdecl("fuzz_webpush_main")
public func fuzzWebPushMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(fuzzWebPush)
}

/// A browser with a subscription made with an app server's key (the engine made
/// once; each input runs on a copy), and that app server's signature for the origin,
/// which an input without its own `authorization` line carries: most inputs get past
/// VAPID to the headers, the body and the browser.
let browser: (engine: DeviceEngine, subscription: String, authorization: String) = {
    let key = try! P256.Signing.PrivateKey(rawRepresentation: [UInt8](repeating: 9, count: 32))
    var engine = DeviceEngine(
        EngineConfiguration(
            device: DeviceSettings(platform: .web, state: .background, seed: 3),
            senders: [SenderConfig(id: "123456789012", key: "key")]))
    engine.handleSilently(.start(at: 0))
    engine.handleSilently(
        .input(.on(.getToken(sender: nil, vapidKey: Base64URL.encode(key.publicKey.x963Representation))), at: 0))
    let signed = try! VAPIDCredentials.signed(
        audience: "http://127.0.0.1:8080", expires: engine.wallClock.unixSeconds(at: 1_000) + 3_600, key: key)
    return (engine, engine.server.webPush.subscription(ofPhone: 0)?.id ?? "", signed.authorization)
}()

let keys = BrowserKeys(scalar: Array(repeating: 7, count: 32), authSecret: Array(repeating: 5, count: 16))!

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWebPush(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var headers: [String: String] = [:]
    var rest = bytes[...]
    while let newline = rest.firstIndex(of: UInt8(ascii: "\n")) {
        let line = String(decoding: rest[..<newline], as: UTF8.self)
        rest = rest[(newline + 1)...]
        if line.isEmpty { break }
        guard let colon = line.firstIndex(of: ":") else { continue }
        headers[line[..<colon].lowercased()] = String(line[line.index(after: colon)...]).trimmingSpaces
    }
    let body = Array(rest)
    if case .vapid(let credentials) = VAPIDCredentials.read(
        authorization: headers["authorization"], cryptoKey: headers["crypto-key"])
    {
        _ = credentials.verifiedClaims()
    }
    _ = try? WebPushCipher.decrypt(aes128gcm: body, keys: keys)
    _ = try? WebPushCipher.decrypt(
        aesgcm: body, encryption: headers["encryption"], cryptoKey: headers["crypto-key"], keys: keys)
    var engine = browser.engine
    let request = WebPushRequest(
        subscription: headers["subscription"] ?? browser.subscription, host: "127.0.0.1:8080",
        ttl: headers["ttl"], topic: headers["topic"], urgency: headers["urgency"],
        contentEncoding: headers["content-encoding"], authorization: headers["authorization"] ?? browser.authorization,
        cryptoKey: headers["crypto-key"], encryption: headers["encryption"], body: Base64URL.encode(body))
    engine.handleSilently(.input(.webPush(request), at: 1_000))
    return 0
}
