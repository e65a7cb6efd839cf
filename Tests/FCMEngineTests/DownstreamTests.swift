import FCMEngine
import Testing

@Suite("Downstream acceptance")
struct DownstreamAcceptanceTests {
    @Test func validMessageIsAcceptedAndDelivered() {
        var h = Harness()
        let events = h.push()
        #expect(events.names == ["downstreamAccepted", "onMessageReceived"])
        #expect(events[0].string("id")?.hasPrefix("0:") == true)
        #expect(events[0].string("id")?.contains("%") == true)
    }

    @Test func missingTokenIsMissingRegistration() {
        var h = Harness()
        let events = h.run(.push(DownstreamRequest(sender: Harness.sender, to: nil)))
        #expect(events[0].string("error") == "MissingRegistration")
    }

    @Test func unknownOrMalformedTokenIsInvalidRegistration() {
        var h = Harness()
        #expect(h.push(to: "garbage").first?.string("error") == "InvalidRegistration")
        #expect(h.push(to: "garbage").first?.string("ccs") == "BAD_REGISTRATION")
    }

    @Test func tokenOfAnotherSenderIsMismatchSenderId() {
        var h = Harness(senders: [Harness.sender, Harness.other])
        let events = h.push(to: h.engine.devices[0].tokens[Harness.other], sender: Harness.sender)
        #expect(events.first?.string("error") == "MismatchSenderId")
    }

    @Test func dataOver4096BytesIsMessageTooBig() {
        var h = Harness()
        let events = h.push(data: [KeyValue("k", String(repeating: "é", count: 2048))])
        #expect(events.first?.string("error") == "MessageTooBig")
        #expect(events.first?.string("ccs") == "INVALID_JSON")
    }

    @Test(arguments: [
        "from", "google.x", "gcm.n.e", "message_type", "googleFoo", "FROM", "Google.x", "GCM", "Message_Type",
    ])
    func reservedDataKeysAreInvalidDataKey(key: String) {
        var h = Harness()
        let events = h.push(data: [KeyValue(key, "v")])
        #expect(events.first?.string("error") == "InvalidDataKey")
        #expect(events.first?.string("detail")?.contains(key) == true)
    }

    @Test(arguments: ["f", "fro", "fromage", "m", "message", "g", "gc", "goog", "Gc_x", "n", "0", "é"])
    func keysThatOnlyBeginLikeAReservedWordAreAllowed(key: String) {
        var h = Harness()
        let events = h.push(data: [KeyValue(key, "v")])
        #expect(events.names == ["downstreamAccepted", "onMessageReceived"])
    }

    @Test func collapseKeyInsideDataIsAllowedAndTheServiceValueWins() {
        var h = Harness()
        let events = h.push(data: [KeyValue("collapse_key", "mine"), KeyValue("k", "v")], collapseKey: "theirs")
        #expect(events.names == ["downstreamAccepted", "onMessageReceived"])
        #expect(events[1]["data"] == .map([KeyValue("k", "v")]))
        #expect(events[1].string("collapse_key") == "theirs")
    }

    @Test func collapseKeyInsideDataIsRecognisedInAnyCase() {
        var h = Harness()
        let events = h.push(data: [KeyValue("Collapse_Key", "mine"), KeyValue("k", "v")])
        #expect(events[1]["data"] == .map([KeyValue("k", "v")]))
    }

    @Test func ordinaryKeysThatMerelyContainReservedWordsAreFine() {
        var h = Harness()
        #expect(
            h.push(data: [
                KeyValue("fromage", "brie"), KeyValue("my_google", "x"), KeyValue("fro", "m"),
                KeyValue("collapse_keys", "x"),
            ])
            .first?.name == "downstreamAccepted")
    }

    @Test(arguments: [Int64(-1), 2_419_201])
    func timeToLiveOutsideZeroToFourWeeksIsInvalidTtl(ttl: Int64) {
        var h = Harness()
        #expect(h.push(ttl: ttl).first?.string("error") == "InvalidTtl")
    }

    @Test func defaultTimeToLiveIsFourWeeks() {
        var h = Harness()
        #expect(h.push().first?["ttl"] == .int(2_419_200))
    }

    @Test func serviceDownIsUnavailable() {
        var h = Harness()
        h.run(.setService(up: false))
        #expect(h.push().first?.string("error") == "Unavailable")
    }

    @Test func badPriorityIsRefused() {
        var h = Harness()
        #expect(h.push(priority: "urgent").first?.string("error") == "InvalidParameters")
    }

    @Test func dryRunValidatesButDoesNotDeliver() {
        var h = Harness()
        let request = DownstreamRequest(sender: Harness.sender, to: h.token, dryRun: true)
        #expect(h.run(.push(request)).names == ["downstreamAccepted"])
    }
}

@Suite("Storage while unreachable")
struct StorageTests {
    @Test func offlineDeviceGetsStoredMessagesWhenItReconnects() {
        var h = Harness(network: .offline)
        h.push(id: "a")
        h.push(id: "b")
        #expect(h.named("stored").count == 2)
        let events = h.run(.setNetwork(.online), after: 1_000)
        #expect(events.named("onMessageReceived").compactMap { $0.string("id") } == ["a", "b"])
    }

    @Test func pastOneHundredNonCollapsibleAllStoredAreDiscardedAndOnDeletedMessagesFollows() {
        var h = Harness(network: .offline)
        for n in 1...100 { h.push(id: "m-\(n)") }
        #expect(h.engine.devices[0].stored.count == 100)
        let overflow = h.push(id: "m-101")
        #expect(overflow.named("discarded").first?["count"] == .int(101))
        #expect(h.engine.devices[0].stored.isEmpty)
        let events = h.run(.setNetwork(.online), after: 1_000)
        #expect(events.names == ["networkChanged", "onDeletedMessages"])
        #expect(events[1]["total_deleted"] == .int(101))
    }

    @Test func newerMessageWithTheSameCollapseKeyReplacesTheStoredOne() {
        var h = Harness(network: .offline)
        h.push(data: [KeyValue("score", "1-0")], collapseKey: "score", id: "s1")
        let events = h.push(data: [KeyValue("score", "2-0")], collapseKey: "score", id: "s2")
        #expect(events.named("collapsed").first?.string("id") == "s1")
        #expect(events.named("collapsed").first?.string("by") == "s2")
        let delivered = h.run(.setNetwork(.online)).named("onMessageReceived")
        #expect(delivered.count == 1)
        #expect(delivered[0]["data"] == .map([KeyValue("score", "2-0")]))
    }

    @Test func collapseIsPerRegistrationToken() {
        var h = Harness(network: .offline, senders: [Harness.sender, Harness.other])
        h.push(collapseKey: "score", id: "mine")
        let events = h.push(collapseKey: "score", sender: Harness.other, id: "theirs")
        #expect(events.named("collapsed").isEmpty)
        #expect(h.engine.devices[0].stored.map(\.id) == ["mine", "theirs"])
        #expect(
            h.push(collapseKey: "score", sender: Harness.other, id: "theirs-2").named("collapsed").first?
                .string("id") == "theirs")
        #expect(h.engine.devices[0].stored.map(\.id) == ["mine", "theirs-2"])
    }

    @Test func notificationMessagesAreAlwaysCollapsible() {
        var h = Harness(network: .offline)
        for n in 1...101 { h.push(notification: [KeyValue("title", "n\(n)")], id: "n-\(n)") }
        #expect(h.named("discarded").isEmpty)
        #expect(h.engine.devices[0].stored.map(\.id) == ["n-101"])
        #expect(h.named("collapsed").last?.string("collapse_key") == "com.example.app")
        h.push(id: "plain")
        #expect(h.engine.devices[0].stored.map(\.id) == ["n-101", "plain"])
        let delivered = h.run(.setNetwork(.online)).named("onMessageReceived")
        #expect(delivered.compactMap { $0.string("id") } == ["n-101", "plain"])
    }

    @Test func notificationsDoNotCountTowardTheHundredNonCollapsible() {
        var h = Harness(network: .offline)
        for n in 1...100 { h.push(id: "m-\(n)") }
        h.push(notification: [KeyValue("title", "t")], collapseKey: "news", id: "note")
        #expect(h.named("discarded").isEmpty)
        #expect(h.engine.devices[0].stored.count == 101)
    }

    @Test func atMostFourCollapseKeysAreStoredTheOldestGoes() {
        var h = Harness(network: .offline)
        for key in ["a", "b", "c", "d", "e"] { h.push(collapseKey: key, id: key) }
        #expect(h.named("discarded").first?.string("id") == "a")
        #expect(h.engine.devices[0].stored.map(\.id) == ["b", "c", "d", "e"])
    }

    @Test func collapseEvictionCanDropTheIncomingMessageInstead() {
        var h = Harness(network: .offline, store: StorePolicy(eviction: .incoming))
        for key in ["a", "b", "c", "d", "e"] { h.push(collapseKey: key, id: key) }
        #expect(h.named("discarded").first?.string("id") == "e")
        #expect(h.engine.devices[0].stored.map(\.id) == ["a", "b", "c", "d"])
    }

    @Test func ttlExpiryDiscardsAStoredMessage() {
        var h = Harness(network: .offline)
        h.push(ttl: 60, id: "short")
        h.wait(61_000)
        #expect(h.named("expired").first?.string("id") == "short")
        #expect(h.named("expired").first?.at == 60_000)
        #expect(h.run(.setNetwork(.online)).named("onMessageReceived").isEmpty)
    }

    @Test func ttlZeroThatCannotBeDeliveredNowIsDiscardedAtOnce() {
        var h = Harness(network: .offline)
        let events = h.push(ttl: 0)
        #expect(events.named("discarded").first?.string("reason") == "ttl-zero")
        #expect(h.engine.devices[0].stored.isEmpty)
    }

    @Test func deviceUnreachableForOverAMonthGetsMessagesAcceptedAndDropped() {
        var h = Harness(network: .offline)
        h.wait(31 * Span.day)
        let events = h.push(id: "late")
        #expect(events.names == ["downstreamAccepted", "discarded"])
        #expect(events[1].string("reason") == "inactive")
        let back = h.run(.setNetwork(.online), after: Span.day)
        #expect(back.named("onDeletedMessages").count == 1)
    }

    @Test func stoppedAppReceivesNothingUntilStarted() {
        var h = Harness(state: .stopped)
        #expect(h.push(id: "x").named("stored").count == 1)
        let started = h.run(.setAppState(.foreground), after: 500)
        #expect(started.named("onMessageReceived").first?.string("id") == "x")
    }

    @Test func deliveryReceiptGoesBackWhenRequested() {
        var h = Harness()
        let events = h.push(id: "r1", receipt: true)
        let receipt = events.named("receipt").first
        #expect(receipt?.string("id") == "dr2:r1")
        #expect(receipt?.string("status") == "MESSAGE_SENT_TO_DEVICE")
        #expect(receipt?.side == .server)
    }

    @Test func noReceiptUntilTheMessageReachesTheDevice() {
        var h = Harness(network: .offline)
        #expect(h.push(id: "r1", receipt: true).named("receipt").isEmpty)
        #expect(h.run(.setNetwork(.online)).named("receipt").count == 1)
    }

    @Test func aReceiptIsOwedUntilItsAppServerAcksIt() {
        var h = Harness(senders: [Harness.sender, Harness.other])
        h.push(id: "r1", receipt: true)
        h.push(id: "r2", receipt: true)
        #expect(h.engine.server.owedReceipts.map(\.id) == ["dr2:r1", "dr2:r2"])
        // Another sender's ack, and an unknown id, change nothing.
        #expect(h.run(.ackReceipt(sender: Harness.other, id: "dr2:r1")).isEmpty)
        #expect(h.run(.ackReceipt(sender: Harness.sender, id: "dr2:nope")).isEmpty)
        let acked = h.run(.ackReceipt(sender: Harness.sender, id: "dr2:r1"))
        #expect(acked.names == ["receiptAck"])
        #expect(h.engine.server.owedReceipts.map(\.id) == ["dr2:r2"])
    }

    @Test func owedReceiptsAreBoundedOldestFirst() {
        // Ten thousand messages to one phone: a load test, with production's limits off.
        var h = Harness(store: StorePolicy(deviceLimits: false))
        for n in 0...DeviceEngine.owedReceiptLimit { h.push(id: "r\(n)", receipt: true) }
        #expect(h.engine.server.owedReceipts.count == DeviceEngine.owedReceiptLimit)
        #expect(h.engine.server.owedReceipts.first?.originalID == "r1")
    }
}

@Suite("Priority and doze")
struct DozeTests {
    @Test func whileDozingNormalPriorityWaitsUntilTheDeviceWakes() {
        var h = Harness()
        h.run(.setDoze(true))
        #expect(h.push(priority: "normal", id: "n").named("stored").first?.string("reason") == "doze")
        let woke = h.run(.setDoze(false), after: 60_000)
        #expect(woke.named("onMessageReceived").first?.string("id") == "n")
    }

    @Test func whileDozingHighPriorityIsDeliveredAtOnce() {
        var h = Harness()
        h.run(.setDoze(true))
        #expect(h.push(priority: "high", id: "h").named("onMessageReceived").count == 1)
    }

    @Test func notificationMessagesDefaultToHighDataToNormal() {
        var h = Harness()
        h.run(.setDoze(true))
        #expect(h.push(data: [], notification: [KeyValue("title", "t")]).named("onMessageReceived").count == 1)
        #expect(h.push().named("stored").count == 1)
    }
}

@Suite("Request limits")
struct RequestLimitTests {
    @Test func aLegacyMulticastNamesOneToOneThousandTokens() {
        #expect(ServiceLimits.registrationIDsProblem(count: 0) == "\"registration_ids\" is empty")
        #expect(ServiceLimits.registrationIDsProblem(count: 1) == nil)
        #expect(ServiceLimits.registrationIDsProblem(count: 1_000) == nil)
        #expect(
            ServiceLimits.registrationIDsProblem(count: 1_001)
                == "Number of messages on bulk (1001) exceeds maximum allowed (1000)")
    }

    @Test func theErrorTableAnswersEachRefusalOnV1AsGoogleDoes() {
        #expect(
            DownstreamError.notRegistered("t").v1Status
                == V1Status(http: 404, rpc: "NOT_FOUND", fcmCode: "UNREGISTERED"))
        #expect(
            DownstreamError.mismatchSenderID("t").v1Status
                == V1Status(http: 403, rpc: "PERMISSION_DENIED", fcmCode: "SENDER_ID_MISMATCH"))
        #expect(DownstreamError.invalidTtl(-1).v1Status.http == 400)
        #expect(
            ErrorTable.v1(faultStatus: 429) == V1Status(http: 429, rpc: "RESOURCE_EXHAUSTED", fcmCode: "QUOTA_EXCEEDED")
        )
        #expect(ErrorTable.v1(faultStatus: 504).rpc == "DEADLINE_EXCEEDED")
        #expect(ErrorTable.legacyText(faultStatus: 503) == "Unavailable")
        #expect(ErrorTable.iidStatus(.notFound) == 404)
        #expect(ErrorTable.v1(.alreadyExists).http == 409)
    }
}
