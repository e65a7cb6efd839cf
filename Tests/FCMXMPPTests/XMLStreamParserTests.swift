import FCMXMPP
import Testing

@Suite("XML stream framing")
struct XMLStreamParserTests {
    static let header =
        "<stream:stream to='fcm.googleapis.com' xmlns:stream='http://etherx.jabber.org/streams' xmlns='jabber:client' xml:lang='en' version='1.0'>"
    static let stanza =
        #"<message id="1"><gcm xmlns="google:mobile:data">{&quot;message_id&quot;:&quot;a&amp;b&quot;}</gcm></message>"#

    func feedAll(_ parser: XMLStreamParser, _ text: String, chunk: Int) throws -> [XMLStreamEvent] {
        let bytes = Array(text.utf8)
        var events: [XMLStreamEvent] = []
        var index = 0
        while index < bytes.count {
            events += try parser.feed(Array(bytes[index..<min(bytes.count, index + chunk)]))
            index += chunk
        }
        return events
    }

    @Test func stanzasSplitAtEveryByteComeOutWhole() throws {
        let events = try feedAll(
            XMLStreamParser(), Self.header + Self.stanza + " " + Self.stanza + "</stream:stream>", chunk: 1)
        #expect(events.count == 4)
        guard case .streamStart(let header) = events[0], case .stanza(let message) = events[1] else {
            Issue.record("unexpected events \(events)")
            return
        }
        #expect(header.attribute("to") == "fcm.googleapis.com")
        #expect(message.attribute("id") == "1")
        #expect(message.child("gcm")?.text == #"{"message_id":"a&b"}"#)
        #expect(message.child("gcm")?.namespace == "google:mobile:data")
        #expect(events[3] == .streamEnd)
    }

    @Test func severalStanzasInOneReadAndWhitespaceKeepalivesBetween() throws {
        let parser = XMLStreamParser()
        _ = try parser.feed(Array(Self.header.utf8))
        let events = try parser.feed(Array((Self.stanza + "  \n " + Self.stanza + " ").utf8))
        #expect(events.count == 2)
    }

    @Test func prefixedGcmElementIsFound() throws {
        let parser = XMLStreamParser()
        let text = Self.header + #"<message><data:gcm xmlns:data="google:mobile:data">{}</data:gcm></message>"#
        let events = try parser.feed(Array(text.utf8))
        guard case .stanza(let message) = events.last else { Issue.record("no stanza"); return }
        #expect(message.child("gcm")?.namespace == "google:mobile:data")
    }

    @Test func restartAcceptsAFreshXMLDeclaration() throws {
        let parser = XMLStreamParser()
        _ = try parser.feed(Array(Self.header.utf8))
        parser.reset()
        let events = try parser.feed(Array(("<?xml version='1.0'?>" + Self.header).utf8))
        guard case .streamStart = events.first else { Issue.record("no restart header"); return }
    }

    @Test func malformedXMLIsNotWellFormed() {
        let parser = XMLStreamParser()
        #expect(throws: XMLStreamError.self) {
            _ = try parser.feed(Array((Self.header + "<message><oops></message>").utf8))
        }
        do {
            _ = try XMLStreamParser().feed(Array((Self.header + "<a></b>").utf8))
        } catch {
            #expect(error.condition == "not-well-formed")
        }
    }

    @Test func aDTDIsRefused() {
        do {
            _ = try XMLStreamParser().feed(Array("<?xml version='1.0'?><!DOCTYPE x [<!ENTITY a 'aaaa'>]><x/>".utf8))
            Issue.record("a DTD was accepted")
        } catch {
            #expect(error.condition == "restricted-xml")
        }
    }

    @Test func billionLaughsIsRefused() {
        let bomb = """
            <?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;">
            <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;">]><stream:stream xmlns:stream='x'>&lol3;
            """
        #expect(throws: XMLStreamError.self) { _ = try XMLStreamParser().feed(Array(bomb.utf8)) }
    }

    @Test func anOversizedStanzaIsRefusedBeforeItIsWhole() throws {
        let parser = XMLStreamParser(maxStanzaBytes: 1_000)
        _ = try parser.feed(Array(Self.header.utf8))
        _ = try parser.feed(Array("<message><gcm>".utf8))
        var refused: XMLStreamError?
        for _ in 0..<100 {
            do {
                _ = try parser.feed(Array(String(repeating: "x", count: 100).utf8))
            } catch {
                refused = error
                break
            }
        }
        #expect(refused?.condition == "policy-violation")
    }

    @Test func theFirstElementMustBeTheStream() {
        do {
            _ = try XMLStreamParser().feed(Array("<message/>".utf8))
            Issue.record("accepted a stanza without a stream")
        } catch {
            #expect(error.condition == "invalid-namespace")
        }
    }

    @Test func afterAnErrorTheParserStaysFailed() {
        let parser = XMLStreamParser()
        _ = try? parser.feed(Array("<<<".utf8))
        #expect(throws: XMLStreamError.self) { _ = try parser.feed(Array(Self.header.utf8)) }
    }
}
