import FCMEngine
import Testing

@Suite("Upstream send")
struct UpstreamTests {
    @Test func onlineSendIsForwardedToTheAppServerAndEchoAcks() {
        var h = Harness()
        let events = h.send("m-1")
        #expect(events.names == ["upstreamForwarded", "appServerAck"])
        let forwarded = events[0]
        #expect(forwarded.string("category") == "com.example.app")
        #expect(forwarded.string("from") == h.token)
        #expect(forwarded["data"] == .map([KeyValue("k", "v")]))
    }

    @Test func toMustBeARegisteredSenderAddress() {
        var h = Harness()
        let events = h.run(.send(UpstreamRequest(to: "555@fcm.googleapis.com", messageID: "x")))
        #expect(events.first?.name == "onSendError")
        #expect(events.first?.string("error") == "InvalidParameters")
        let wrongDomain = h.run(.send(UpstreamRequest(to: "\(Harness.sender)@example.com", messageID: "y")))
        #expect(wrongDomain.first?.string("detail")?.contains("fcm.googleapis.com") == true)
    }

    @Test(arguments: [
        ("@gcm.googleapis.com", true), ("@fcm.googleapis.com", true), ("", false), ("@", false),
        ("@fcm.googleapis.co", false), ("@fcm.googleapis.com.example", false), ("@FCM.googleapis.com", false),
        ("@@fcm.googleapis.com", false),
    ])
    func theFcmSdkSendsToEitherDomainExactlyAsWritten(suffix: String, forwarded: Bool) {
        var h = Harness()
        let events = h.run(.send(UpstreamRequest(to: Harness.sender + suffix, messageID: "x")))
        #expect(events.names.contains("upstreamForwarded") == forwarded, "\(suffix)")
        if !forwarded { #expect(events.first?.string("error") == "InvalidParameters") }
    }

    @Test func gcmSdkWantsTheGcmDomain() {
        var h = Harness(sdk: .gcm)
        let events = h.run(.send(UpstreamRequest(to: "\(Harness.sender)@fcm.googleapis.com", messageID: "x")))
        #expect(events.first?.string("error") == "InvalidParameters")
        #expect(h.send("y").names.contains("upstreamForwarded"))
    }

    @Test func messageIDMustBeUniquePerSender() {
        var h = Harness()
        h.send("m-1")
        let again = h.send("m-1")
        #expect(again.names == ["onSendError"])
        #expect(again[0].string("detail")?.contains("already used") == true)
    }

    @Test func aRefusedMessageLeavesItsIdFreeToUse() {
        var h = Harness()
        let big = String(repeating: "x", count: 4096)
        #expect(h.send("m-1", data: [DataItem("k", .string(big))]).first?.string("error") == "MessageTooBig")
        #expect(h.send("m-1", ttl: -5).first?.string("error") == "InvalidParameters")
        #expect(!h.engine.hasUsedMessageID("m-1", onPhoneAt: 0))
        #expect(h.send("m-1").names.contains("upstreamForwarded"))
        #expect(h.engine.hasUsedMessageID("m-1", onPhoneAt: 0))
    }

    @Test func nonStringDataValuesAreDroppedWithAWarning() {
        var h = Harness()
        let events = h.send("m-1", data: [DataItem("n", .nonString(kind: "number")), DataItem("s", .string("ok"))])
        #expect(events.names.first == "warning")
        #expect(events[0].string("key") == "n")
        #expect(events.named("upstreamForwarded").first?["data"] == .map([KeyValue("s", "ok")]))
    }

    @Test func payloadOver4096BytesIsRefused() {
        var h = Harness()
        let big = String(repeating: "x", count: 4096)
        let events = h.send("m-1", data: [DataItem("k", .string(big))])
        #expect(events.names == ["onSendError"])
        #expect(events[0].string("error") == "MessageTooBig")
        let exact = h.send("m-2", data: [DataItem("k", .string(String(repeating: "x", count: 4095)))])
        #expect(exact.names.contains("upstreamForwarded"))
    }

    @Test func androidUpstreamSizeCountsBytes() {
        var h = Harness()
        let events = h.send("m-1", data: [DataItem("k", .string(String(repeating: "é", count: 3_001)))])
        #expect(events.names == ["onSendError"])
        #expect(events[0].string("detail")?.contains("6003 bytes") == true)
    }

    @Test func iosUpstreamSizeCountsCharacters() {
        var h = Harness(platform: .ios)
        let fits = h.send("m-1", data: [DataItem("k", .string(String(repeating: "é", count: 3_001)))])
        #expect(fits.named("upstreamForwarded").count == 1)
        let over = h.send("m-2", data: [DataItem("k", .string(String(repeating: "é", count: 4_096)))])
        #expect(over.first?.string("error") == "MessageTooBig")
        #expect(over.first?.string("detail")?.contains("4097 characters") == true)
    }

    @Test func withoutAppServerTheServerRetriesWithBackoffUntilTtl() {
        var h = Harness(appServer: .none)
        h.send("m-1", ttl: 10)
        h.wait(20_000)
        let retries = h.named("upstreamRetry")
        #expect(retries.map(\.at) == [1_000, 3_000, 7_000])
        #expect(h.named("expired").first?.at == 10_000)
        #expect(h.engine.server.awaitingAck.isEmpty)
    }

    @Test func appServerAckStopsTheRetries() {
        var h = Harness(appServer: .none)
        h.send("m-1", ttl: 60)
        h.wait(1_500)
        h.run(.ackUpstream(sender: Harness.sender, id: "m-1"))
        h.wait(60_000)
        #expect(h.named("upstreamRetry").count == 1)
        #expect(h.named("appServerAck").count == 1)
        #expect(h.named("expired").isEmpty)
    }

    @Test func echoStaysSilentWhileARealAppServerOfTheSenderIsConnected() {
        var h = Harness()
        h.run(.setAppServerPresent(sender: Harness.sender, present: true))
        #expect(h.send("m-1").names == ["upstreamForwarded"])
        #expect(h.engine.server.awaitingAck.count == 1)
        h.run(.setAppServerPresent(sender: Harness.sender, present: false))
        #expect(h.send("m-2").names == ["upstreamForwarded", "appServerAck"])
    }

    @Test func ackForAnUnknownMessageIsIgnoredVisibly() {
        var h = Harness(appServer: .none)
        #expect(h.run(.ackUpstream(sender: Harness.sender, id: "nope")).names == ["ackIgnored"])
    }

    @Test func stoppedAppCannotSend() {
        var h = Harness(state: .stopped)
        #expect(h.send("m-1").names == ["commandRefused"])
    }

    @Test func iosClampsTtlAboveOneDay() {
        var h = Harness(platform: .ios)
        let events = h.send("m-1", ttl: 999_999)
        #expect(events.names.first == "warning")
        #expect(events.named("upstreamForwarded").first?["ttl"] == .int(86_400))
    }
}

@Suite("Pending queue")
struct PendingQueueTests {
    @Test func offlineMessagesWaitInAQueueOfAtMostTwentyTheTwentyFirstIsTooManyMessages() {
        var h = Harness(network: .offline)
        for n in 1...20 { #expect(h.send("m-\(n)").names == ["upstreamQueued"]) }
        let refused = h.send("m-21")
        #expect(refused.names == ["onSendError"])
        #expect(refused[0].string("error") == "TooManyMessages")
        #expect(refused[0].at == 0)
        #expect(h.engine.devices[0].pending.count == 20)
    }

    @Test func serviceDownQueuesToo() {
        var h = Harness()
        h.run(.setService(up: false))
        #expect(h.send("m-1").names == ["upstreamQueued"])
    }

    @Test func waitingMessageWhoseTtlRunsOutFailsWithServiceNotAvailable() {
        var h = Harness(network: .offline)
        h.send("m-1", ttl: 5)
        h.send("m-2", ttl: 60)
        h.wait(10_000)
        let errors = h.named("onSendError")
        #expect(errors.count == 1)
        #expect(errors[0].string("id") == "m-1")
        #expect(errors[0].string("error") == "SERVICE_NOT_AVAILABLE")
        #expect(errors[0].at == 5_000)
    }

    @Test func ttlZeroWithoutConnectionFailsAtOnce() {
        var h = Harness(network: .offline)
        let events = h.send("m-1", ttl: 0)
        #expect(events.named("onSendError").first?.string("error") == "SERVICE_NOT_AVAILABLE")
    }

    @Test func onReconnectTheQueueIsSentInOrder() {
        var h = Harness(network: .offline)
        for n in 1...3 { h.send("m-\(n)") }
        let events = h.run(.setNetwork(.online), after: 1_000)
        let ids = events.named("upstreamForwarded").compactMap { $0.string("id") }
        #expect(ids == ["m-1", "m-2", "m-3"])
        #expect(h.engine.devices[0].pending.isEmpty)
    }

    @Test func iosFcmUsesSendDataMessageFailure() {
        var h = Harness(platform: .ios, network: .offline)
        for n in 1...21 { h.send("m-\(n)") }
        #expect(h.named("sendDataMessageFailure").first?.string("error") == "TooManyMessages")
    }

    @Test func iosGcmReportsThroughWillSendDataMessageWithID() {
        var h = Harness(platform: .ios, sdk: .gcm, network: .offline)
        #expect(h.send("m-1", ttl: 1).names == ["willSendDataMessageWithID", "upstreamQueued"])
        h.wait(2_000)
        #expect(h.named("willSendDataMessageWithID").last?.string("error") == "SERVICE_NOT_AVAILABLE")
    }
}

@Suite("Batched send callbacks")
struct BatchedCallbackTests {
    @Test func onMessageSentArrivesInBatchesPerTheWindow() {
        var h = Harness(batch: BatchPolicy(window: 2_000, max: 10))
        h.send("m-1")
        h.wait(500)
        h.send("m-2")
        #expect(h.named("onMessageSent").isEmpty)
        h.wait(1_500)
        let batches = h.named("onMessageSent")
        #expect(batches.count == 1)
        #expect(batches[0]["ids"] == .list(["m-1", "m-2"]))
        #expect(batches[0].at == 2_000)
    }

    @Test func aFullBatchIsDeliveredAtOnce() {
        var h = Harness(batch: BatchPolicy(window: 60_000, max: 3))
        for n in 1...4 { h.send("m-\(n)") }
        let batches = h.named("onMessageSent")
        #expect(batches.count == 1)
        #expect(batches[0]["count"] == .int(3))
        h.wait(60_000)
        #expect(h.named("onMessageSent").last?["ids"] == .list(["m-4"]))
    }

    @Test func queuedMessagesAreBatchedWhenTheyGoOut() {
        var h = Harness(network: .offline, batch: BatchPolicy(window: 1_000, max: 50))
        for n in 1...5 { h.send("m-\(n)") }
        h.run(.setNetwork(.online), after: 100)
        h.wait(1_000)
        #expect(h.named("onMessageSent").map(\.["count"]) == [.int(5)])
    }

    @Test func iosGcmBatchesDidSendDataMessageWithID() {
        var h = Harness(platform: .ios, sdk: .gcm)
        h.send("a")
        h.send("b")
        h.wait(2_000)
        #expect(h.named("didSendDataMessageWithID").first?["ids"] == .list(["a", "b"]))
    }
}
