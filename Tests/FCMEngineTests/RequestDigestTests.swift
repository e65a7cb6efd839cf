import FCMEngine
import Testing

/// A request's digest is the same in every run and every release: the report card
/// matches a resend to its first sending by it, and a run's digests are compared with
/// the ones a saved run wrote.
@Suite("A request's digest")
struct RequestDigestTests {
    /// FNV-1a over each field's text and a 0xff after it: the digest as first written.
    static func reference(_ request: DownstreamRequest) -> String {
        var texts = [request.sender, request.to ?? "", request.condition ?? ""]
        texts += request.data.map { $0.key + "=" + $0.value }
        texts += (request.notification ?? []).map { "n." + $0.key + "=" + $0.value }
        texts += [request.collapseKey ?? "", request.priority ?? "", request.timeToLive.map { String($0) } ?? ""]
        texts.append(
            [request.deliveryReceiptRequested, request.dryRun, request.contentAvailable, request.mutableContent]
                .map { $0 ? "1" : "0" }.joined())
        var value: UInt64 = 0xcbf2_9ce4_8422_2325
        for text in texts {
            for byte in Array(text.utf8) + [0xff] {
                value ^= UInt64(byte)
                value = value &* 0x100_0000_01b3
            }
        }
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    static let requests: [DownstreamRequest] = [
        DownstreamRequest(sender: "1", to: "t"),
        DownstreamRequest(
            sender: "123456789012", to: nil, data: [KeyValue("k", "v"), KeyValue("é", "✓")], condition: "'a' in topics"),
        DownstreamRequest(
            sender: "1", to: "/topics/news", messageID: "left out", notification: [KeyValue("title", "Hi")],
            collapseKey: "c",
            priority: "high", timeToLive: 0, deliveryReceiptRequested: true, mutableContent: true),
        DownstreamRequest(sender: "1", to: "t", timeToLive: 2_419_200, dryRun: true, contentAvailable: true),
        DownstreamRequest(sender: "1", to: "t", timeToLive: -10),
        DownstreamRequest(sender: "1", to: "t", timeToLive: .min),
        DownstreamRequest(sender: "1", to: "t", timeToLive: .max),
    ]

    @Test("the same digest as first written, field by field", arguments: requests)
    func theDigestIsTheOneFirstWritten(request: DownstreamRequest) {
        #expect(RequestDigest.of(request) == Self.reference(request))
    }

    @Test("the message id is left out; every other field counts")
    func theMessageIdIsLeftOut() {
        var first = DownstreamRequest(sender: "1", to: "t", messageID: "a", data: [KeyValue("k", "v")])
        let digest = RequestDigest.of(first)
        first.messageID = "b"
        #expect(RequestDigest.of(first) == digest)
        first.data = [KeyValue("k", "w")]
        #expect(RequestDigest.of(first) != digest)
    }
}
