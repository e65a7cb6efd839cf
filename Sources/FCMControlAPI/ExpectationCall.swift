import FCMEngine
import FCMHTTPPort
import FCMJSON
import FCMProfiles

/// `POST expectations`: `{"expect": {"event": …, field: value}}` or `{"expect_none": …}`
/// in the profile's own syntax, judged against the events after `?after=SEQ` (all by
/// default); an `expect` may wait for its event with `?wait=5s`.
struct ExpectationCall {
    var expectation: Expectation
    var negated: Bool
    var after: Int64 = 0
    var wait: Duration?
    var held = false
    var detail: String?
    var matchedSeq: Int64?

    /// An expectation from a body parsed already, read against the device (under the
    /// session's lock: only what needs the device is read there).
    static func read(_ body: ActionBody, query: HTTPRequestParts, engine: DeviceEngine) -> Result<
        ExpectationCall, ControlProblem
    > {
        let action: StepAction
        do throws(ProfileError) {
            action = try ProfileParser.readAction(body, on: engine).action
        } catch {
            return .failure(ControlProblem(error.description))
        }
        var call: ExpectationCall
        switch action {
        case .expect(let expectation): call = ExpectationCall(expectation: expectation, negated: false)
        case .expectNone(let expectation): call = ExpectationCall(expectation: expectation, negated: true)
        case .command, .push:
            return .failure(
                ControlProblem(
                    "the body must be {\"expect\": {…}} or {\"expect_none\": {…}}; actions go to devices/NAME/actions"))
        }
        if let text = query.parameter("after") {
            guard let after = Int64(text), after >= 0 else {
                return .failure(ControlProblem("after must be a sequence number, not \(text)"))
            }
            call.after = after
        }
        if let text = query.parameter("wait") {
            switch ControlDuration.read(text) {
            case .success(let wait): call.wait = wait
            case .failure(let problem): return .failure(problem)
            }
        }
        return .success(call)
    }

    /// What is wrong with the body's shape before its expectation is read: anything
    /// but `expect` or `expect_none` at its top (an action is not checked as one first),
    /// or the call's options (`wait`, `after`), which go in the query.
    static func shapeProblem(_ text: String) -> String? {
        guard case .object(let body)? = try? JSONParser.parse(Array(text.utf8)) else { return nil }
        let options = ["wait", "after"]
        var inner: [String] = []
        for key in ["expect", "expect_none"] {
            if case .object(let fields)? = body[key] { inner += fields.keys }
        }
        if let option = (body.keys + inner).first(where: options.contains) {
            return "\(option) goes in the query, not the body: POST expectations?\(option)=…"
        }
        if let other = body.keys.first(where: { !["expect", "expect_none"].contains($0) }) {
            return "the body must be {\"expect\": {…}} or {\"expect_none\": {…}}, not \(other); "
                + "actions go to devices/NAME/actions"
        }
        return nil
    }

    /// Takes the one judge's verdict; a failure says what happened instead.
    mutating func judge(_ verdict: ExpectationJudge.Verdict) {
        held = verdict.held
        matchedSeq = verdict.decisive?.key
        detail = ExpectationJudge.detail(
            verdict, expectation, negated: negated, label: { seq, _ in "seq \(seq)" },
            happened: { seq, _ in "it happened: seq \(seq) " })
    }

    var replyJSON: String {
        var members: [(key: String, value: JSONValue)] = [
            (key: "held", value: .bool(held)),
            (key: "expect", value: .string(expectation.label(negated: negated))),
        ]
        if let matchedSeq { members.append((key: "seq", value: .int(matchedSeq))) }
        if let detail { members.append((key: "detail", value: .string(detail))) }
        return JSONValue.object(JSONObject(members)).json
    }
}
