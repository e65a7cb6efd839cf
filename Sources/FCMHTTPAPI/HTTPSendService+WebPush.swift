import FCMEngine
import FCMHTTPPort
import FCMJSON

extension HTTPSendService {
    /// A Web Push request, as it came, up to the device: the push service's rules
    /// (VAPID, TTL, Topic, encoding, size) are the engine's.
    func webPush(_ request: HTTPRequestParts, subscription: String) async -> HTTPReply {
        let answer = await device.webPush(
            WebPushRequest(
                subscription: subscription, host: request.header("host") ?? "127.0.0.1",
                secure: request.secure, ttl: request.header("ttl"),
                topic: request.header("topic"), urgency: request.header("urgency"),
                contentEncoding: request.header("content-encoding"), authorization: request.header("authorization"),
                cryptoKey: request.header("crypto-key"), encryption: request.header("encryption"),
                body: Base64URL.encode(request.body)))
        var reply = HTTPReply.text(
            answer.status, answer.body, headers: answer.headers.map { KeyedHeader($0.key, $0.value) })
        reply.fromDevice = true
        return reply
    }
}
