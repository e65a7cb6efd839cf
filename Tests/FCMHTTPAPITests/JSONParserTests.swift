import FCMEngine
import FCMJSON
import FCMLegacyFields
import Foundation
import Testing

@Suite("Strict JSON parser for message bodies")
struct JSONParserTests {
    func parse(_ text: String) throws -> JSONValue { try JSONParser.parse(Array(text.utf8)) }

    @Test("objects, arrays, numbers as written, escapes and surrogate pairs")
    func values() throws {
        let value = try parse(#" {"a":[1,-2.5e3,true,false,null],"s":"tab\there \"q\" \u00e9 \ud83d\ude00","n":{}} "#)
        let object = try #require(value.object)
        #expect(object["a"] == .array([.number("1"), .number("-2.5e3"), .bool(true), .bool(false), .null]))
        #expect(object["s"] == .string("tab\there \"q\" é 😀"))
        #expect(object["n"] == .object(JSONObject()))
        #expect(object["a"]?.text == "[1,-2.5e3,true,false,null]")
        #expect(JSONValue.number("9007199254740993").int64 == 9_007_199_254_740_993)
    }

    @Test("what Foundation reads, this reads the same way")
    func agreesWithFoundation() throws {
        let text = #"{"to":"tok","data":{"k":"v","n":"1"},"time_to_live":60,"dry_run":true,"x":[1,"2",{"y":null}]}"#
        let ours = try #require(try parse(text).object)
        let theirs = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(Set(ours.keys) == Set(theirs.keys))
        #expect(ours["to"]?.string == theirs["to"] as? String)
        #expect(ours["time_to_live"]?.int64 == (theirs["time_to_live"] as? NSNumber)?.int64Value)
    }

    @Test(
        "malformed, hostile and non-UTF-8 input is refused with the byte it failed at",
        arguments: [
            "", "{", "{\"a\":}", "{\"a\" 1}", "[1,]", "01", "1.", "-", "tru", "\"abc", "{\"a\":1}x", "\"\\x\"",
            "\"\\ud800\"", "\"\\udc00x\"", "\"a\u{01}b\"", "{'a':1}", "NaN", "[1 2]",
        ])
    func refusals(_ text: String) {
        #expect(throws: JSONParser.Failure.self) { try parse(text) }
    }

    @Test("nesting deeper than the limit is refused, not recursed into")
    func depth() throws {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONParser.Failure.self) { try parse(deep) }
        let fine =
            String(repeating: "[", count: JSONParser.maxDepth) + String(repeating: "]", count: JSONParser.maxDepth)
        #expect(throws: Never.self) { try parse(fine) }
    }

    @Test("invalid UTF-8 inside a string is refused")
    func invalidUTF8() {
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse([0x22, 0xFF, 0xFE, 0x22]) }
    }
}
