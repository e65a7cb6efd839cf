import ArgumentParser
import FCMConnectionServer
import FCMEngine
import FCMHTTPAPI
import FCMJSON
import FCMProfiles
import FCMSession
import Foundation

/// `fcm-device exec -- COMMAND …`: the emulator around one command, as `firebase
/// emulators:exec` does: started on free ports, its whereabouts in the command's
/// environment, stopped when the command ends.
struct ExecCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "exec",
        abstract: "Start an emulator, run a command (a test suite) against it, then stop it.",
        discussion: """
            Starts the device and its connection server on free ports (unless ports are named) with a \
            fresh state folder (unless --state names one), plays the profile's timeline (unless \
            --no-timeline), runs COMMAND \
            with these in its environment, stops the emulator and exits with COMMAND's status, or 1 if \
            COMMAND succeeded but an expect step of the profile failed or was never reached (each one is \
            named, with what happened instead), or, with --fail-on, the app server's report card has a \
            finding that bad (the report is printed after COMMAND either way; docs/report.md). \
            COMMAND's environment gains:
              FCM_EMULATOR_HOST           the HTTP port as 127.0.0.1:PORT (no scheme)
              FCM_EMULATOR_CONTROL        the control API's base URL (http://…/PROJECT)
              FCM_EMULATOR_PROJECT        the first sender's project (or sender ID)
              FCM_EMULATOR_SENDER         the first sender's ID
              FCM_EMULATOR_SERVER_KEY     its server key (legacy API, XMPP)
              FCM_EMULATOR_TOKEN          its token (a device of one phone only)
              FCM_EMULATOR_TOKENS         every sender's: {"SENDER":"TOKEN"} (the same)
              FCM_EMULATOR_DEVICE_TOKENS  each phone's: {"PHONE":{"SENDER":"TOKEN"}}
              FCM_EMULATOR_CCS_HOST       the XMPP TLS port as 127.0.0.1:PORT
              FCM_EMULATOR_CCS_PLAIN_HOST the XMPP plain port as 127.0.0.1:PORT
              FCM_EMULATOR_CA             the TLS certificate to trust (PEM)
              FCM_EMULATOR_CREDENTIALS    a service account whose token_uri is here
            and what `fcm-device env` prints, so unmodified SDKs calling Google's hosts reach the \
            emulator: HTTPS_PROXY, NO_PROXY, SSL_CERT_FILE, REQUESTS_CA_BUNDLE, CURL_CA_BUNDLE, \
            HTTPLIB2_CA_CERTS, NODE_EXTRA_CA_CERTS, NODE_USE_ENV_PROXY, JAVA_TOOL_OPTIONS.
            """
    )

    @Option(help: "A device profile (YAML); its timeline plays while COMMAND runs. Default: the built-in device.")
    var profile: String?

    @Option(help: "Write every event, as JSON lines, to this file.")
    var log: String?

    @Flag(
        name: .customLong("no-timeline"),
        help: "Run COMMAND against the profile's device alone: its timeline does not play (nor its expectations).")
    var noTimeline = false

    @OptionGroup var listen: ListenOptions

    @OptionGroup(title: "App server report card (docs/report.md)") var report: ReportOptions

    @Argument(parsing: .captureForPassthrough, help: "The command to run, after --.")
    var command: [String] = []

    func validate() throws {
        // Passthrough would take a leading --help as the command to run.
        if let first = command.first, ["--help", "-h"].contains(first) { throw CleanExit.helpRequest(self) }
        // `exec --` alone names no command either (said here, so exec's usage follows).
        if command.isEmpty || command == ["--"] {
            throw ValidationError("name the command to run after --, e.g. exec -- pytest")
        }
        if command.first == "--" { return }
        // An option of exec's own misspelt before `--` would otherwise be run as the command.
        if let first = command.first, first.hasPrefix("-") {
            let name = String(first.prefix { $0 != "=" })
            let hint = CloseNames.suggestion(among: Self.optionNames, to: name)
            throw ValidationError(
                "exec has no option \(name)" + (hint.isEmpty ? "." : hint)
                    + " The command to run goes after --: exec --profile P -- pytest")
        }
    }

    func run() async throws {
        let argv = command.first == "--" ? Array(command.dropFirst()) : command
        guard !argv.isEmpty else { throw ValidationError("name the command to run after --, e.g. exec -- pytest") }
        let loaded = try ProfileLoading.load(profile)
        var options = listen
        options.freePortsByDefault = true
        let temporary = options.state == nil ? try Self.temporaryFolder() : nil
        if let temporary { options.state = temporary }
        defer { if let temporary { try? FileManager.default.removeItem(atPath: temporary) } }
        let recorder = ExecRecorder(path: log)
        let session = try await options.openSession(loaded, profilePath: profile) { event, seq in
            recorder.record(event, seq: seq)
        }
        try await session.start(timeline: profile == nil || noTimeline ? [] : loaded.steps)
        let environment: [String: String]
        do {
            environment = try Self.environment(session: session, folder: options.state ?? StateFolder.default)
        } catch {
            try await session.stop()
            Diagnostics.write("fcm-device exec: \(error)")
            throw ExitCode(2)
        }
        let status = await ChildProcess.run(argv, adding: environment)
        let unreached = await session.server.unreachedExpectations()
        // The report card as the command left it: the stop's own ends of connections
        // are the emulator's, not the app server's.
        let card = session.server.events.runReport
        try await session.stop()
        recorder.close()
        let outcome = ExecReport(failed: recorder.failures, unreached: unreached.steps, endedAt: unreached.now)
        for line in outcome.lines(command: argv[0], profile: profile ?? "") {
            Diagnostics.write("fcm-device exec: " + line)
        }
        // The app server's report card, after the command: what it did against Google's practices.
        for line in card.lines { Diagnostics.write("fcm-device exec: " + line) }
        if !card.isClean, report.failOn == nil {
            Diagnostics.write(
                "fcm-device exec: the report card does not change the exit status; --fail-on error (or warning) "
                    + "makes these fail the run"
            )
        }
        do {
            try report.write(card)
        } catch {
            Diagnostics.write("fcm-device exec: \(error)")
            throw ExitCode(2)
        }
        if status == 0, !outcome.isEmpty {
            Diagnostics.write(
                "fcm-device exec: \(argv[0]) passed, but the profile did not: \(outcome.summary); exiting 1")
            throw ExitCode(1)
        }
        if status == 0, report.fails(card) {
            Diagnostics.write(
                "fcm-device exec: \(argv[0]) passed, but the app server's report has \(card.summary) "
                    + "(--fail-on \(report.failOn ?? "")); exiting 1")
            throw ExitCode(1)
        }
        throw ExitCode(status)
    }

    /// exec's own options, for "did you mean".
    static var optionNames: [String] {
        [
            "--profile", "--log", "--no-timeline", "--report", "--report-junit", "--fail-on", "--help",
        ] + ListenOptions.optionNames
    }

    static func temporaryFolder() throws -> String {
        let path = NSTemporaryDirectory() + "fcm-device-exec-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Where COMMAND finds the emulator.
    static func environment(session: DeviceSession, folder: String) throws -> [String: String] {
        let server = session.server
        let engine = server.host.engine
        // The project's variables are the profile's first sender's. The single-phone
        // token variables name the only phone's tokens: a fleet's phones are named
        // (FCM_EMULATOR_DEVICE_TOKENS), never implied.
        guard let first = engine.configuration.senders.first, let http = server.httpPort else {
            throw ValidationError("the profile has no sender, or the HTTP port is closed")
        }
        let project = first.project ?? first.id
        let host = "127.0.0.1"
        let onlyPhone = try? engine.phoneIndex(named: DeviceEngine.onlyPhoneName).get()
        var tokens = JSONObject()
        if let onlyPhone {
            let phone = engine.devices[onlyPhone]
            for sender in phone.senders {
                tokens.members.append((key: sender.id, value: .string(phone.tokens[sender.id] ?? "")))
            }
        }
        // Every phone's tokens by name, for suites that drive several phones.
        var phones = JSONObject()
        for phone in engine.devices {
            let own = JSONObject(phone.senders.map { (key: $0.id, value: .string(phone.tokens[$0.id] ?? "")) })
            phones.members.append((key: phone.name, value: .object(own)))
        }
        let credentials = folder + "/service-account-\(project).json"
        let key = try StateFolder.serviceAccountKey(folder)
        let json = key.credentialsJSON(project: project, tokenURI: "http://\(host):\(http)/token") + "\n"
        guard
            FileManager.default.createFile(
                atPath: credentials, contents: Data(json.utf8), attributes: [.posixPermissions: 0o600])
        else { throw ValidationError("cannot write \(credentials)") }
        var environment = [
            "FCM_EMULATOR_HOST": "\(host):\(http)",
            "FCM_EMULATOR_CONTROL": "http://\(host):\(http)/emulator/v1/projects/\(project)",
            "FCM_EMULATOR_PROJECT": project,
            "FCM_EMULATOR_SENDER": first.id,
            "FCM_EMULATOR_SERVER_KEY": first.key,
            "FCM_EMULATOR_DEVICE_TOKENS": JSONValue.object(phones).json,
            "FCM_EMULATOR_CCS_HOST": "\(host):\(server.ccsPort ?? 0)",
            "FCM_EMULATOR_CCS_PLAIN_HOST": "\(host):\(server.ccsPlainPort ?? 0)",
            "FCM_EMULATOR_CA": session.identity.trustPath,
            "FCM_EMULATOR_CREDENTIALS": credentials,
        ]
        if let onlyPhone {
            environment["FCM_EMULATOR_TOKEN"] = engine.devices[onlyPhone].tokens[first.id] ?? ""
            environment["FCM_EMULATOR_TOKENS"] = JSONValue.object(tokens).json
        }
        // The user's own JVM options and proxy exceptions are kept, with these added.
        let inherited = ProcessInfo.processInfo.environment
        for (name, value) in session.proxyEnvironment.variables {
            if ["JAVA_TOOL_OPTIONS", "NO_PROXY", "no_proxy"].contains(name), let own = inherited[name], !own.isEmpty {
                environment[name] = own + (name == "JAVA_TOOL_OPTIONS" ? " " : ",") + value
            } else {
                environment[name] = value
            }
        }
        return environment
    }
}
