/// One piece of evidence for a finding: an event of the log, and what it shows.
public struct ReportEvidence: Sendable, Equatable {
    /// When it happened, in session time.
    public var at: Millis
    /// The API it came in on (`v1`, `legacy`, `ccs`), when it was a request.
    public var api: String?
    /// What it concerns: a token, a connection, a message id.
    public var subject: String
    /// The request and its answer, in a line.
    public var detail: String
    /// Its sequence number in the event log the report card read (the first event is 1,
    /// as `GET events` numbers them).
    public var event: Int

    public init(at: Millis, api: String?, subject: String, detail: String, event: Int) {
        self.at = at
        self.api = api
        self.subject = subject
        self.detail = detail
        self.event = event
    }
}

/// A practice the app server broke: how often, and the first pieces of evidence.
public struct ReportFinding: Sendable, Equatable {
    public var rule: ReportRule
    public var count: Int
    public var examples: [ReportEvidence]

    public var severity: ReportSeverity { rule.severity }

    /// How many pieces of evidence a finding keeps.
    public static let exampleLimit = 5

    public init(rule: ReportRule, count: Int = 0, examples: [ReportEvidence] = []) {
        self.rule = rule
        self.count = count
        self.examples = examples
    }

    /// Counts one more breach, keeping its evidence while there is room.
    mutating func add(_ evidence: ReportEvidence) {
        count += 1
        if examples.count < Self.exampleLimit { examples.append(evidence) }
    }
}

/// What the report card found, worst first (then in the rules' order).
public struct AppServerReport: Sendable, Equatable {
    public var findings: [ReportFinding]
    /// How many app-server requests (sends, refused requests, topic calls, XMPP logins)
    /// the card read: none means there was nothing to judge.
    public var requests = 0
    /// How many downstream messages the device took (an app server's or a profile's
    /// push): the rules about what the device saw judge them all.
    public var messages = 0

    public init(findings: [ReportFinding], requests: Int = 0, messages: Int = 0) {
        self.requests = requests
        self.messages = messages
        self.findings = findings.sorted {
            $0.severity != $1.severity
                ? $0.severity < $1.severity
                : ReportRule.allCases.firstIndex(of: $0.rule)! < ReportRule.allCases.firstIndex(of: $1.rule)!
        }
    }

    public var isClean: Bool { findings.isEmpty }

    /// Whether a finding of `severity` or worse is there.
    public func has(atLeast severity: ReportSeverity) -> Bool {
        findings.contains { $0.severity <= severity }
    }

    /// How many findings of each severity, as a line (`2 errors, 1 note`).
    public var summary: String {
        guard !isClean else { return "no findings" }
        return ReportSeverity.allCases.compactMap { severity in
            let count = findings.filter { $0.severity == severity }.count
            return count == 0 ? nil : "\(count) \(severity.rawValue)\(count == 1 ? "" : "s")"
        }.joined(separator: ", ")
    }
}
