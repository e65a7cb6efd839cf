import FCMEngine
import Foundation
import Testing

@testable import FCMStore

@Suite("Journal entry coding")
struct InputCodingTests {
    func request(_ n: Int, full: Bool) -> DownstreamRequest {
        DownstreamRequest(
            sender: "12345", to: full ? "tok-\(n)" : nil, messageID: full ? "id-\(n) ✓" : nil,
            data: [KeyValue("k\(n)", "v\(n)"), KeyValue("émoji", "🚀 \"quoted\"")],
            notification: full ? [KeyValue("title", "Hi"), KeyValue("body", "")] : nil,
            collapseKey: full ? "score" : nil, priority: full ? "high" : nil, timeToLive: full ? 0 : nil,
            deliveryReceiptRequested: full, dryRun: n % 2 == 0, contentAvailable: full, mutableContent: n % 3 == 0)
    }

    func detailed(_ n: Int) -> DownstreamRequest {
        var request = request(n, full: n % 2 == 0)
        request.details = MessageDetails(
            restrictedPackageName: "com.example.app", analyticsLabel: "label-\(n)", directBootOK: n % 2 == 0,
            liveActivityToken: "activity", ignored: ["webpush", "notification.ticker"])
        return request
    }

    static let v2AndWebpush: PlatformOverrides = {
        var sync = MessageOverride(data: [KeyValue("s", "1")], details: MessageDetails(directBootOK: true))
        sync.dataOnly = true
        sync.blockName = "android_v2"
        return PlatformOverrides(android: sync, webpush: MessageOverride(data: [KeyValue("w", "1")]))
    }()

    @Test("every input comes back as it went in, binary or JSON")
    func roundTrip() throws {
        let inputs: [JournalEntry] = [
            .input(.push(request(1, full: true)), at: 42),
            .input(.push(request(2, full: false)), at: Int64.max),
            .input(
                .send(
                    [SendOrder(request(3, full: true), byInstallation: true), SendOrder(request(4, full: false))]),
                at: 7),
            .input(.send([]), at: 0),
            .start(at: 0),
            .advance(to: 9_000),
            .input(.ackUpstream(sender: "12345", id: "u-1"), at: 10),
            .input(.on(.send(UpstreamRequest(to: "12345@fcm.googleapis.com", messageID: "m", data: []))), at: 11),
            .input(.appServer(.received(3, .ack(messageID: "u-2"))), at: 12),
            .input(.appServer(.received(4, .downstream(request(6, full: true), messageID: "d-1"))), at: 13),
            .input(.appServer(.opened(5)), at: 14),
            .input(.send([SendOrder(DownstreamRequest(sender: "12345", to: nil, condition: "'a' in topics"))]), at: 15),
            .input(
                .topics(TopicOrder(sender: "12345", topic: "news", tokens: ["t1", "t2"], change: .add, api: .iid)),
                at: 16),
            .input(.on(.subscribe(topic: "news", sender: nil)), at: 17),
            // A v1 send keeps its platform blocks through the journal.
            .input(
                .send(
                    [
                        SendOrder(
                            request(7, full: true),
                            overrides: PlatformOverrides(
                                android: MessageOverride(collapseKey: "a", priority: "high", timeToLive: 30),
                                apns: MessageOverride(
                                    expiresAtUnixSeconds: 1_800_000_000, notification: [KeyValue("title", "T")],
                                    contentAvailable: true))),
                        SendOrder(request(8, full: false), byInstallation: true, overrides: PlatformOverrides()),
                    ]), at: 18),
            // A message's details (package, label, direct boot, Live Activity, what is
            // ignored) and androidV2's and webpush's blocks too.
            .input(.send([SendOrder(detailed(9), overrides: Self.v2AndWebpush)]), at: 19),
            .input(.push(detailed(10)), at: 20),
            // An app server's sends keep where and when they started, and the access
            // token's digest (the report card's evidence).
            .input(
                .send(
                    [
                        SendOrder(
                            request(11, full: false),
                            origin: WireOrigin(
                                api: .v1, digest: "d-11",
                                exchange: HTTPExchange(connection: 3, request: 2, started: 21),
                                bearer: "b-11")),
                        SendOrder(
                            request(12, full: false),
                            origin: WireOrigin(
                                api: .v1, digest: "d-12",
                                exchange: HTTPExchange(connection: 4, request: nil, started: 0))),
                        SendOrder(request(13, full: false), origin: WireOrigin(api: .legacy, digest: "d-13")),
                    ]), at: 22),
        ]
        for input in inputs {
            let bytes = try InputCoding.encode(input, json: JSONEncoder())
            #expect(try InputCoding.decode(bytes, json: JSONDecoder()) == input)
        }
        #expect(try InputCoding.encode(inputs[0], json: JSONEncoder()).first == InputCoding.pushTag)
        #expect(try InputCoding.encode(inputs[4], json: JSONEncoder()).first == UInt8(ascii: "{"))
        #expect(try InputCoding.encode(inputs[5], json: JSONEncoder()).first == InputCoding.advanceTag)
        #expect(try InputCoding.encode(inputs[6], json: JSONEncoder()).first == InputCoding.ackTag)
        #expect(try InputCoding.encode(inputs[8], json: JSONEncoder()).first == InputCoding.linkAckTag)
        #expect(try InputCoding.encode(inputs[9], json: JSONEncoder()).first == InputCoding.linkDownstreamTag)
        #expect(try InputCoding.encode(inputs[14], json: JSONEncoder()).first == InputCoding.sendTag)
    }

    @Test("a cut-short entry is an error, never a wrong message")
    func truncatedEntriesThrow() throws {
        let bytes = try InputCoding.encode(.input(.push(request(5, full: true)), at: 1), json: JSONEncoder())
        for length in 1..<bytes.count {
            #expect(throws: (any Error).self) {
                _ = try InputCoding.decode(Array(bytes[0..<length]), json: JSONDecoder())
            }
        }
    }

    /// Journal lines as state format 9 wrote them, before a phone's commands had a type
    /// of their own: a command for the only phone was bare, and a push aimed at a phone
    /// that was not there was wrapped as a command on that phone.
    @Test(
        "journal entries written before phone commands had a type of their own, or topic calls were commands, are read")
    func entriesOfFormatNineAreRead() throws {
        func read(_ line: String) throws -> JournalEntry {
            try InputCoding.decode(Array(line.utf8), json: JSONDecoder())
        }
        #expect(
            try read(#"{"apply":{"_0":{"setNetwork":{"_0":"offline"}},"at":5}}"#)
                == .input(.on(.setNetwork(.offline)), at: 5))
        #expect(
            try read(#"{"apply":{"_0":{"on":{"device":"pixel","_1":{"setDoze":{"_0":true}}}},"at":6}}"#)
                == .input(.on(device: "pixel", .setDoze(true)), at: 6))
        let requestJSON = String(decoding: try JSONEncoder().encode(request(1, full: false)), as: UTF8.self)
        let aimed = #"{"apply":{"_0":{"on":{"device":"gone","_1":{"push":{"_0":"# + requestJSON + #"}}}},"at":7}}"#
        #expect(try read(aimed) == .input(.pushToUnknownPhone("gone"), at: 7))
        // An app server's topic and group calls were inputs of their own.
        let topics = TopicOrder(sender: "12345", topic: "news", tokens: ["t1"], change: .add, api: .iid)
        let topicsJSON = String(decoding: try JSONEncoder().encode(topics), as: UTF8.self)
        #expect(try read(#"{"topics":{"_0":"# + topicsJSON + #","at":8}}"#) == .input(.topics(topics), at: 8))
        let group = GroupOrder(sender: "12345", operation: .create, name: "family", key: nil, tokens: ["t1"])
        let groupJSON = String(decoding: try JSONEncoder().encode(group), as: UTF8.self)
        #expect(try read(#"{"group":{"_0":"# + groupJSON + #","at":9}}"#) == .input(.group(group), at: 9))
        // Still an error: a phone command's name the vocabulary does not have.
        #expect(throws: (any Error).self) { _ = try read(#"{"apply":{"_0":{"setNetwrok":{"_0":"offline"}},"at":5}}"#) }
    }
}
