import FCMEngine
import FCMXMPP
import Foundation
import Testing

@Suite("XMPP session negotiation")
struct XMPPSessionTests {
    static let keys = ["123456789": "secret-key"]

    func session() -> XMPPSession { XMPPSession(keys: Self.keys, streamID: "S1", resource: "r1") }

    func header(_ to: String = "fcm.googleapis.com") -> XMLStreamEvent {
        .streamStart(XMLElement(name: "stream:stream", attributes: [("to", to), ("version", "1.0")]))
    }

    func auth(_ authzid: String, _ authcid: String, _ password: String, mechanism: String = "PLAIN") -> XMLStreamEvent {
        let blob = Data((authzid + "\0" + authcid + "\0" + password).utf8).base64EncodedString()
        return .stanza(XMLElement(name: "auth", attributes: [("mechanism", mechanism)], text: blob))
    }

    func iq(_ type: String, _ id: String, _ child: String) -> XMLStreamEvent {
        .stanza(XMLElement(name: "iq", attributes: [("type", type), ("id", id)], children: [XMLElement(name: child)]))
    }

    func written(_ outputs: [SessionOutput]) -> String {
        outputs.compactMap { if case .write(let text) = $0 { text } else { nil } }.joined()
    }

    @Test func headerHasVersionIdAndFromAndOffersOnlyPlain() {
        var s = session()
        let text = written(s.handle(header()))
        #expect(text.contains(#"version="1.0""#))
        #expect(text.contains(#"id="S1""#))
        #expect(text.contains(#"from="fcm.googleapis.com""#))
        #expect(text.contains("<mechanism>PLAIN</mechanism>"))
        #expect(!text.contains("DIGEST-MD5") && !text.contains("SCRAM"))
    }

    @Test(arguments: [
        ("", "123456789"), ("123456789@fcm.googleapis.com", "123456789"), ("", "123456789@gcm.googleapis.com"),
        ("123456789@gcm.googleapis.com", "123456789@fcm.googleapis.com"),
    ])
    func plainAcceptsEveryIdentityFormClientsUse(authzid: String, authcid: String) {
        var s = session()
        _ = s.handle(header())
        let out = s.handle(auth(authzid, authcid, "secret-key"))
        #expect(out.contains(.authenticated(sender: "123456789")))
        #expect(out.contains(.restartParser))
    }

    @Test func wrongKeyIsNotAuthorizedAndTheStreamStaysOpenForARetry() {
        var s = session()
        _ = s.handle(header())
        let out = s.handle(auth("", "123456789", "wrong"))
        #expect(written(out).contains("<not-authorized/>"))
        #expect(!out.contains(.close))
        #expect(s.handle(auth("", "123456789", "secret-key")).contains(.authenticated(sender: "123456789")))
    }

    @Test func authzidOfAnotherSenderIsRefused() {
        var s = session()
        _ = s.handle(header())
        #expect(
            written(s.handle(auth("999@fcm.googleapis.com", "123456789", "secret-key"))).contains("<not-authorized/>"))
    }

    @Test func otherMechanismsAreInvalid() {
        var s = session()
        _ = s.handle(header())
        #expect(
            written(s.handle(auth("", "123456789", "secret-key", mechanism: "DIGEST-MD5"))).contains(
                "invalid-mechanism"))
    }

    @Test func nothingIsAcceptedBeforeAuthentication() {
        var s = session()
        _ = s.handle(header())
        let out = s.handle(.stanza(XMLElement(name: "message", children: [XMLElement(name: "gcm", text: "{}")])))
        #expect(written(out).contains("<not-authorized"))
        #expect(out.last == .close)
        #expect(s.phase == .closed)
    }

    @Test func restartBindSessionThenMessages() {
        var s = session()
        _ = s.handle(header("gcm.googleapis.com"))
        _ = s.handle(auth("", "123456789", "secret-key"))
        let features = written(s.handle(header("gcm.googleapis.com")))
        #expect(features.contains("urn:ietf:params:xml:ns:xmpp-bind"))
        let bind = written(s.handle(iq("set", "b1", "bind")))
        #expect(bind.contains(#"id="b1""#))
        #expect(bind.contains("<jid>123456789@gcm.googleapis.com/r1</jid>"))
        let session = s.handle(iq("set", "s1", "session"))
        #expect(written(session).contains(#"type="result" id="s1""#))
        #expect(session.contains(.established))
        let message = s.handle(
            .stanza(
                XMLElement(name: "message", attributes: [("id", "7")], children: [XMLElement(name: "gcm", text: "{}")]))
        )
        #expect(message == [.gcm(json: "{}", stanzaID: "7")])
    }

    @Test func pingIsAnsweredWithTheSameID() {
        var s = session()
        _ = s.handle(header())
        _ = s.handle(auth("", "123456789", "secret-key"))
        _ = s.handle(header())
        #expect(written(s.handle(iq("get", "c2s1", "ping"))).contains(#"<iq type="result" id="c2s1""#))
        #expect(written(s.handle(iq("get", "x", "vcard"))).contains("service-unavailable"))
    }

    @Test func repliesToIQsSentWithoutToCarryNoFrom() {
        var s = session()
        _ = s.handle(header())
        _ = s.handle(auth("", "123456789", "secret-key"))
        _ = s.handle(header())
        _ = s.handle(iq("set", "b1", "bind"))
        #expect(written(s.handle(iq("set", "s1", "session"))) == #"<iq type="result" id="s1"/>"#)
        #expect(written(s.handle(iq("get", "p1", "ping"))) == #"<iq type="result" id="p1"/>"#)
        #expect(!written(s.handle(iq("get", "v1", "vcard"))).contains("from="))
    }

    @Test func repliesToIQsSentToAnAddressComeFromThatAddress() {
        var s = session()
        _ = s.handle(header())
        _ = s.handle(auth("", "123456789", "secret-key"))
        _ = s.handle(header())
        let ping = XMLStreamEvent.stanza(
            XMLElement(
                name: "iq", attributes: [("type", "get"), ("id", "p2"), ("to", "fcm.googleapis.com")],
                children: [XMLElement(name: "ping")]))
        #expect(written(s.handle(ping)) == #"<iq type="result" id="p2" from="fcm.googleapis.com"/>"#)
    }

    @Test func streamEndIsAnsweredInKind() {
        var s = session()
        _ = s.handle(header())
        #expect(s.handle(.streamEnd) == [.write("</stream:stream>"), .close])
    }

    @Test func constantTimeComparison() {
        #expect(ConstantTime.equals("abc", "abc"))
        #expect(!ConstantTime.equals("abc", "abd"))
        #expect(!ConstantTime.equals("abc", "abcd"))
    }
}
