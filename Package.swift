// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "fcm-device",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "fcm-device", targets: ["fcm-device"]),
        .library(name: "FCMEngine", targets: ["FCMEngine"]),
        .library(name: "FCMProfiles", targets: ["FCMProfiles"]),
        .library(name: "FCMTerminalUI", targets: ["FCMTerminalUI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
    ],
    targets: [
        // The rules of a client app instance and its connection server: pure, no I/O.
        .target(name: "FCMEngine"),
        // YAML device profiles, headless replay on a virtual clock, transcripts.
        .target(
            name: "FCMProfiles",
            dependencies: ["FCMEngine", .product(name: "Yams", package: "Yams")]
        ),
        // The TUI as a pure model, update and view: state to a grid of cells.
        .target(name: "FCMTerminalUI", dependencies: ["FCMEngine", "FCMProfiles"]),
        // The system ncursesw, through a small C shim.
        .systemLibrary(name: "CNCurses", path: "Sources/CNCurses", providers: [.apt(["libncursesw5-dev"])]),
        // Records termination signals for the TUI's main loop.
        .target(name: "CTerminalSignals"),
        // Paints the view's grids with ncurses, reads keys, restores the terminal.
        .target(
            name: "FCMCursesBackend",
            dependencies: ["CNCurses", "CTerminalSignals", "FCMTerminalUI", "FCMEngine", "FCMProfiles"]),
        // The executable: argument parsing only.
        .executableTarget(
            name: "fcm-device",
            dependencies: [
                "FCMEngine", "FCMProfiles", "FCMTerminalUI", "FCMCursesBackend",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "FCMEngineTests", dependencies: ["FCMEngine"]),
        .testTarget(name: "FCMProfilesTests", dependencies: ["FCMProfiles", "FCMEngine"]),
        .testTarget(
            name: "FCMTerminalUITests", dependencies: ["FCMTerminalUI", "FCMEngine", "FCMProfiles"],
            exclude: ["Snapshots"]),
        // Runs the built executable as a user would.
        .testTarget(name: "FCMDeviceCLITests", dependencies: ["fcm-device"]),
    ],
    swiftLanguageModes: [.v6]
)
