// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "fcm-device",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "fcm-device", targets: ["fcm-device"]),
        .library(name: "FCMEngine", targets: ["FCMEngine"]),
        .library(name: "FCMProfiles", targets: ["FCMProfiles"]),
        .library(name: "FCMDoor", targets: ["FCMDoor"]),
        .library(name: "FCMTerminalUI", targets: ["FCMTerminalUI"]),
        // For the fuzz targets in Fuzz/ (a package of their own, built with sanitizers).
        .library(name: "FCMJSON", targets: ["FCMJSON"]),
        .library(name: "FCMWebPush", targets: ["FCMWebPush"]),
        .library(name: "FCMLegacyFields", targets: ["FCMLegacyFields"]),
        .library(name: "FCMXMPP", targets: ["FCMXMPP"]),
        .library(name: "FCMMCS", targets: ["FCMMCS"]),
        .library(name: "FCMHTTPAPI", targets: ["FCMHTTPAPI"]),
        .library(name: "FCMHTTPPort", targets: ["FCMHTTPPort"]),
        .library(name: "FCMCredentials", targets: ["FCMCredentials"]),
        .library(name: "FCMControlAPI", targets: ["FCMControlAPI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0"),
    ],
    targets: [
        // JSON: the value, the strict reader and the one writer. Owned by no rule.
        .target(name: "FCMJSON"),
        // Web Push's cryptography, pure: a browser's subscription keys, the
        // aes128gcm and aesgcm content encodings (RFC 8291, RFC 8188) and VAPID (RFC
        // 8292), on swift-crypto.
        .target(
            name: "FCMWebPush",
            dependencies: ["FCMJSON", .product(name: "Crypto", package: "swift-crypto")]
        ),
        // The rules of a client app instance and its connection server: pure, no I/O.
        .target(name: "FCMEngine", dependencies: ["FCMJSON", "FCMWebPush"]),
        // Each kind of event described once, for people, beside the engine: the
        // fields it may carry (what an expect or a filter may name), what it means
        // (docs/events.md) and the rule behind it with its source (the TUI's why).
        .target(name: "FCMEventGuide", dependencies: ["FCMEngine"]),
        // YAML device profiles, headless replay on a virtual clock, transcripts, the
        // report card's JUnit XML.
        .target(
            name: "FCMProfiles",
            dependencies: [
                "FCMEngine", "FCMEventGuide", "FCMJSON", "FCMWebPush", .product(name: "Yams", package: "Yams"),
            ]
        ),
        // The running session, the one front door every door goes through: the host
        // (DeviceHost: submit, the journal, the event log's fan-out, the timer, a
        // timeline), its engine box, the event log, the session's clock and its loop
        // (an event loop's when served, a manual one the TUI moves), and the door a
        // person's TUI sees (DeviceDoor). No listener and no NIO.
        .target(name: "FCMDoor", dependencies: ["FCMEngine", "FCMProfiles", "FCMStore"]),
        // The TUI as a pure model, update and view: state to a grid of cells.
        .target(
            name: "FCMTerminalUI", dependencies: ["FCMDoor", "FCMEngine", "FCMEventGuide", "FCMProfiles"]),
        // The system ncursesw, through a small C shim.
        // The library is named by platform: ncursesw on Linux, ncurses (wide included) on macOS.
        .systemLibrary(
            name: "CNCurses", path: "Sources/CNCurses", providers: [.apt(["libncursesw5-dev"]), .brew(["ncurses"])]),
        // Records termination signals for the TUI's main loop.
        .target(name: "CTerminalSignals"),
        // Paints the view's grids with ncurses, reads keys, restores the terminal.
        .target(
            name: "FCMCursesBackend",
            dependencies: ["CNCurses", "CTerminalSignals", "FCMDoor", "FCMTerminalUI", "FCMEngine", "FCMProfiles"],
            linkerSettings: [
                .linkedLibrary("ncursesw", .when(platforms: [.linux])),
                .linkedLibrary("ncurses", .when(platforms: [.macOS])),
            ]),
        // The system libexpat: a streaming XML parser for XMPP.
        .systemLibrary(name: "CExpat", path: "Sources/CExpat", providers: [.apt(["libexpat1-dev"])]),
        // MCS, the connection a real client (firebase-messaging) keeps: framing, the
        // protobuf messages (generated from Protos/ by scripts/generate-protos.sh and
        // committed) and the server's side of a session, pure: bytes in, inputs and
        // frames out.
        .target(
            name: "FCMMCS",
            dependencies: ["FCMEngine", .product(name: "SwiftProtobuf", package: "swift-protobuf")]
        ),
        // XMPP framing and the CCS session rules, pure: bytes and events in, replies out.
        .target(name: "FCMXMPP", dependencies: ["CExpat", "FCMEngine", "FCMJSON", "FCMLegacyFields"]),
        // The downstream message fields that CCS and the HTTP legacy API share, read
        // with the service's strict types.
        .target(name: "FCMLegacyFields", dependencies: ["FCMEngine", "FCMJSON"]),
        // Service-account keys, signed JWT assertions and the access tokens the token
        // endpoint issues (RSA through swift-crypto).
        .target(
            name: "FCMCredentials",
            dependencies: [
                "FCMJSON",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // What every API of the HTTP port shares, as plain values: a request and its
        // reply, the port's one route table, its one authentication step, and Google's
        // v1 error body. The send APIs and the control API both use it.
        .target(name: "FCMHTTPPort", dependencies: ["FCMEngine", "FCMJSON", "FCMCredentials"]),
        // The HTTP send APIs as plain values: legacy and v1 bodies, the OAuth2 grant.
        .target(
            name: "FCMHTTPAPI",
            dependencies: ["FCMEngine", "FCMJSON", "FCMLegacyFields", "FCMCredentials", "FCMMCS", "FCMHTTPPort"]
        ),
        // The control API (/emulator/v1/): the fleet read, actions at its two doors,
        // events, faults and expectations, on the session's event log.
        .target(
            name: "FCMControlAPI",
            dependencies: ["FCMDoor", "FCMEngine", "FCMEventGuide", "FCMJSON", "FCMProfiles", "FCMHTTPPort"]),
        // The device's state in SQLite (GRDB): a snapshot and a write-ahead journal of
        // the calls made on the engine since.
        .target(
            name: "FCMStore",
            dependencies: ["FCMEngine", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        // The emulated connection server on SwiftNIO: the listeners (CCS, MCS, HTTP,
        // the HTTPS proxy) that hand a session (FCMDoor) what arrives and write what it
        // asks for. They listen; the session is not theirs.
        .target(
            name: "FCMConnectionServer",
            dependencies: [
                "FCMXMPP", "FCMDoor", "FCMEngine", "FCMHTTPAPI", "FCMHTTPPort", "FCMCredentials", "FCMStore",
                "FCMControlAPI", "FCMMCS",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            ]
        ),
        // The composition root of a running emulator: the state folder, the device's
        // file, TLS material and trust stores, the server, the session's clock and the
        // TUI's link to it.
        .target(
            name: "FCMSession",
            dependencies: [
                "FCMConnectionServer", "FCMControlAPI", "FCMDoor", "FCMEngine", "FCMJSON", "FCMProfiles", "FCMHTTPAPI",
                "FCMCredentials", "FCMStore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // The executable: argument parsing only.
        .executableTarget(
            name: "fcm-device",
            dependencies: [
                "FCMEngine", "FCMJSON", "FCMProfiles", "FCMTerminalUI", "FCMCursesBackend", "FCMConnectionServer",
                "FCMSession", "FCMHTTPAPI", "FCMCredentials", "FCMStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // A load generator for `fcm-device serve` (run on purpose; see BENCHMARKS.md).
        .executableTarget(
            name: "xmpp-load",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            path: "Benchmarks/XMPPLoad"
        ),
        .testTarget(name: "FCMEngineTests", dependencies: ["FCMEngine", "FCMEventGuide", "FCMJSON", "FCMWebPush"]),
        .testTarget(name: "FCMDoorTests", dependencies: ["FCMDoor", "FCMEngine", "FCMProfiles"]),
        .testTarget(name: "FCMWebPushTests", dependencies: ["FCMWebPush", "FCMJSON"]),
        .testTarget(
            name: "FCMStoreTests",
            dependencies: ["FCMStore", "FCMEngine", .product(name: "GRDB", package: "GRDB.swift")],
            // Fixtures/format-2.sqlite, format-6.sqlite and format-7.sqlite: state files
            // written by the releases of formats 2, 6 and 7 (from the profiles beside
            // them), for the migration tests.
            exclude: ["Fixtures"]),
        .testTarget(name: "FCMProfilesTests", dependencies: ["FCMProfiles", "FCMEngine", "FCMEventGuide", "FCMJSON"]),
        .testTarget(
            name: "FCMTerminalUITests",
            dependencies: ["FCMDoor", "FCMTerminalUI", "FCMEngine", "FCMJSON", "FCMProfiles"],
            exclude: ["Snapshots"]),
        .testTarget(name: "FCMXMPPTests", dependencies: ["FCMXMPP", "FCMEngine", "FCMJSON"]),
        .testTarget(
            name: "FCMMCSTests",
            dependencies: ["FCMMCS", "FCMEngine", .product(name: "SwiftProtobuf", package: "swift-protobuf")]),
        .testTarget(
            name: "FCMControlAPITests",
            dependencies: ["FCMControlAPI", "FCMDoor", "FCMHTTPPort", "FCMEngine", "FCMJSON", "FCMProfiles"]),
        .testTarget(
            name: "FCMHTTPAPITests",
            dependencies: ["FCMHTTPAPI", "FCMHTTPPort", "FCMEngine", "FCMJSON", "FCMLegacyFields"]),
        .testTarget(
            name: "FCMConnectionServerTests",
            dependencies: [
                "FCMConnectionServer", "FCMDoor", "FCMSession", "FCMXMPP", "FCMEngine", "FCMJSON", "FCMProfiles",
                "FCMHTTPAPI", "FCMHTTPPort",
                "FCMCredentials", "FCMStore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // Runs the built executable as a user would.
        .testTarget(name: "FCMDeviceCLITests", dependencies: ["fcm-device", "FCMEngine"]),
    ],
    swiftLanguageModes: [.v6]
)
