import FCMEngine
import FCMXMPP
import Foundation
import Testing

@Suite("CCS messages")
struct CCSMessageTests {
    @Test func downstreamFieldsAreRead() {
        let json =
            #"{"to":"T","message_id":"m1","data":{"a":"1","n":2},"notification":{"title":"t"},"collapse_key":"c","priority":"high","time_to_live":60,"delivery_receipt_requested":true,"dry_run":false}"#
        guard case .downstream(let request, let id) = CCSReader.read(json, sender: "S") else {
            Issue.record("not read as downstream"); return
        }
        #expect(id == "m1")
        #expect(request.to == "T")
        #expect(request.sender == "S")
        #expect(request.data == [KeyValue("a", "1"), KeyValue("n", "2")])
        #expect(request.notification == [KeyValue("title", "t")])
        #expect(request.timeToLive == 60)
        #expect(request.deliveryReceiptRequested)
    }

    @Test("a name CCS does not know is taken as absent and listed as ignored; every field it reads is not")
    func unknownNamesAreIgnoredAndListed() {
        let misspelt = #"{"to":"T","message_id":"m1","delivery_reciept_requested":true,"data":{"a":"1"}}"#
        guard case .downstream(let request, _) = CCSReader.read(misspelt, sender: "S") else {
            Issue.record("not read as downstream"); return
        }
        #expect(!request.deliveryReceiptRequested)
        #expect(request.details?.ignored == ["delivery_reciept_requested"])
        let known =
            #"{"to":"T","message_id":"m1","data":{"a":"1"},"collapse_key":"c","priority":"high","time_to_live":60,"delivery_receipt_requested":true,"dry_run":false,"content_available":true}"#
        guard case .downstream(let plain, _) = CCSReader.read(known, sender: "S") else {
            Issue.record("not read as downstream"); return
        }
        #expect(plain.details?.ignored == nil)
    }

    @Test func ttlOfTheWrongTypeIsInvalidJson() {
        #expect(
            CCSReader.read(#"{"to":"T","message_id":"m1","time_to_live":"abc"}"#, sender: "S")
                == .refused(
                    messageID: "m1", error: "INVALID_JSON",
                    description:
                        #"InvalidJson: JSON_TYPE_ERROR : Field "time_to_live" must be a JSON java.lang.Number: abc"#))
    }

    @Test func booleanFieldsMustBeBooleans() {
        guard
            case .refused(_, let error, _) = CCSReader.read(
                #"{"to":"T","message_id":"m1","dry_run":"yes"}"#, sender: "S")
        else { Issue.record("accepted"); return }
        #expect(error == "INVALID_JSON")
    }

    @Test func missingMessageIDCannotBeNacked() {
        guard case .unreadable(_, _, let text) = CCSReader.read(#"{"to":"T"}"#, sender: "S") else {
            Issue.record("read"); return
        }
        #expect(text.contains("Missing Required Field: message_id"))
        guard case .unreadable = CCSReader.read("not json", sender: "S") else { Issue.record("read"); return }
    }

    @Test func acksAndBadAcks() {
        #expect(
            CCSReader.read(#"{"to":"T","message_id":"u1","message_type":"ack"}"#, sender: "S") == .ack(messageID: "u1"))
        guard
            case .refused(_, let error, _) = CCSReader.read(
                #"{"message_id":"u1","message_type":"receipt"}"#, sender: "S")
        else { Issue.record("accepted"); return }
        #expect(error == "BAD_ACK")
    }

    @Test func outboundStanzasHaveCCSShapes() throws {
        #expect(
            CCSOutbound.ack(messageID: "m1", from: "T")
                == #"<message id=""><gcm xmlns="google:mobile:data">{"from":"T","message_id":"m1","message_type":"ack"}</gcm></message>"#
        )
        #expect(
            CCSOutbound.ack(messageID: #"m<&>"1\"#, from: "T")
                == #"<message id=""><gcm xmlns="google:mobile:data">{"from":"T","message_id":"m&lt;&amp;&gt;\"1\\","message_type":"ack"}</gcm></message>"#,
            "an id is escaped for JSON, then the JSON for XML")
        #expect(
            CCSOutbound.nack(messageID: "m1", from: "T", error: "BAD_REGISTRATION", description: "x").contains(
                "<data:gcm xmlns:data="))
        let upstream = CCSOutbound.upstream(
            sender: "S", domain: "gcm.googleapis.com", token: "T", messageID: "u1", category: "com.x",
            data: [KeyValue("k", "<&>")], timeToLive: 60)
        #expect(
            upstream.hasPrefix(#"<message to="S@gcm.googleapis.com" from="devices@gcm.googleapis.com" type="normal">"#))
        #expect(upstream.contains(#""k":"&lt;&amp;&gt;""#))
        #expect(CCSOutbound.draining.contains("CONNECTION_DRAINING"))
        let error = CCSOutbound.stanzaError(id: "9", original: "{}", text: "InvalidJson")
        #expect(error.contains(#"<message id="9" type="error">"#))
        #expect(error.contains(#"<error code="400" type="modify">"#))
    }

    @Test func receiptCarriesTheDr2ID() throws {
        let receipt = CCSOutbound.receipt(
            originalID: "m1", token: "T", category: "com.x", sentAt: 5, domain: "fcm.googleapis.com", sender: "S")
        #expect(receipt.contains(#""message_id":"dr2:m1""#))
        #expect(receipt.contains("MESSAGE_SENT_TO_DEVICE"))
    }
}
