// swift-tools-version: 6.0
import PackageDescription

// libFuzzer targets for what fcm-device reads from outside: message JSON, the XMPP
// stream, HTTP send bodies, v1 bodies against Google's schema, profiles, Web Push
// requests and a real client's MCS stream and check-in. Build and run with Fuzz/run.sh.
let package = Package(
    name: "fcm-device-fuzz",
    dependencies: [
        .package(name: "fcm-device", path: ".."),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
    ],
    targets: [
        .target(name: "FuzzDriver"),
        .executableTarget(
            name: "fuzz-json",
            dependencies: [
                "FuzzDriver",
                .product(name: "FCMJSON", package: "fcm-device"),
                .product(name: "FCMLegacyFields", package: "fcm-device"),
                .product(name: "FCMEngine", package: "fcm-device"),
                .product(name: "FCMXMPP", package: "fcm-device"),
            ]),
        .executableTarget(
            name: "fuzz-xmpp", dependencies: ["FuzzDriver", .product(name: "FCMXMPP", package: "fcm-device")]),
        .executableTarget(
            name: "fuzz-mcs",
            dependencies: [
                "FuzzDriver", .product(name: "FCMMCS", package: "fcm-device"),
                .product(name: "FCMEngine", package: "fcm-device"),
            ]),
        .executableTarget(
            name: "fuzz-profile", dependencies: ["FuzzDriver", .product(name: "FCMProfiles", package: "fcm-device")]),
        .executableTarget(
            name: "fuzz-http",
            dependencies: [
                "FuzzDriver",
                .product(name: "FCMHTTPAPI", package: "fcm-device"),
                .product(name: "FCMHTTPPort", package: "fcm-device"),
                .product(name: "FCMEngine", package: "fcm-device"),
            ]),
        .executableTarget(
            name: "fuzz-webpush",
            dependencies: [
                "FuzzDriver",
                .product(name: "FCMWebPush", package: "fcm-device"),
                .product(name: "FCMEngine", package: "fcm-device"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        .executableTarget(
            name: "fuzz-v1",
            dependencies: [
                "FuzzDriver",
                .product(name: "FCMHTTPAPI", package: "fcm-device"),
                .product(name: "FCMJSON", package: "fcm-device"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
