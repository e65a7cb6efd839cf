import FCMEngine
import FCMJSON

extension HTTPSendService {
    /// A Web Push request, as it came, up to the device: the push service's rules
    /// (VAPID, TTL, Topic, encoding, size) are the engine's.
    func webPush(_ request: HTTPRequestParts, subscription: String) async -> HTTPReply {
        let answer = await device.webPush(
            WebPushRequest(
                subscription: subscription, origin: Self.origin(of: request), ttl: request.header("ttl"),
                topic: request.header("topic"), urgency: request.header("urgency"),
                contentEncoding: request.header("content-encoding"), authorization: request.header("authorization"),
                cryptoKey: request.header("crypto-key"), encryption: request.header("encryption"),
                body: Base64URL.encode(request.body)))
        var reply = HTTPReply.text(
            answer.status, answer.body, headers: answer.headers.map { KeyedHeader($0.key, $0.value) })
        reply.fromDevice = true
        return reply
    }

    /// The origin a request reached, as a VAPID `aud` names it: Google's host over
    /// the HTTPS proxy, else the emulator's own base as the `Host` header gives it.
    static func origin(of request: HTTPRequestParts) -> String {
        let host = request.header("host") ?? "127.0.0.1"
        let name = host.split(separator: ":").first.map(String.init) ?? host
        if ProxyRequest.interceptedHosts.contains(name.lowercased()) { return "https://" + name.lowercased() }
        return "http://" + host
    }
}
