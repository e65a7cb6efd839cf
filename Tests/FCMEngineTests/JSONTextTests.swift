import FCMJSON
import Foundation
import Testing

@testable import FCMEngine

/// The one JSON writer writes the same text into a string and into bytes.
@Suite("JSON writer")
struct JSONTextTests {
    static let document = JSONValue.members([
        "quote\"": .string("line\nbreak\ttab\r\u{1}\\"), "empty": .string(""), "unicode": .string("é 🙂 日本"),
        "numbers": .array([.int(0), .int(-7), .number("1.5e3")]),
        "flags": .array([.bool(true), .bool(false), .null]), "nested": .members(["a": .array([])]),
    ])

    @Test("bytes and text hold the same JSON, escapes and all, and it parses back")
    func bytesAndTextAgree() throws {
        var text = ""
        JSONText.append(Self.document, to: &text)
        var bytes: [UInt8] = []
        JSONText.append(Self.document, to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == text)
        #expect(text.contains(#""quote\"":"line\nbreak\ttab\r\u0001\\""#))
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        #expect(parsed["unicode"] as? String == "é 🙂 日本")
        #expect((parsed["numbers"] as? [Any])?.count == 3)
    }

    @Test("whole numbers are written digit by digit, signs and extremes included")
    func wholeNumbers() {
        for number: Int64 in [0, 9, 10, -1, -10, 1_234_567_890, .max, .min] {
            var bytes: [UInt8] = Array("x".utf8)
            JSONText.appendInt(number, to: &bytes)
            #expect(String(decoding: bytes, as: UTF8.self) == "x" + String(number))
        }
    }

    @Test("event fields: lists and maps in bytes as in text")
    func fieldValues() {
        let values: [FieldValue] = [
            .string("a\"b"), .int(-3), .bool(true), .list(["x", "y\n"]), .map([KeyValue("k", "v\\")]),
        ]
        for value in values {
            var text = ""
            JSONText.append(value, to: &text)
            var bytes: [UInt8] = []
            JSONText.append(value, to: &bytes)
            #expect(String(decoding: bytes, as: UTF8.self) == text)
        }
    }
}
