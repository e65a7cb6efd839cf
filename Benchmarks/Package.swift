// swift-tools-version: 6.1
import PackageDescription

// Benchmarks run on purpose (`swift package benchmark`), never in `swift test`.
let package = Package(
    name: "fcm-device-benchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "fcm-device", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),

    ],
    targets: [
        // A large profile made in code, shared by the benchmark and the profiler.
        .target(
            name: "GeneratedProfile",
            dependencies: [
                .product(name: "FCMEngine", package: "fcm-device"),
                .product(name: "FCMProfiles", package: "fcm-device"),
            ]
        ),
        // A plain program to run under a profiler.
        .executableTarget(
            name: "ReplayProfiler",
            dependencies: ["GeneratedProfile", .product(name: "FCMProfiles", package: "fcm-device")]),
        .executableTarget(
            name: "FrameRender",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "FCMEngine", package: "fcm-device"),
                .product(name: "FCMProfiles", package: "fcm-device"),
                .product(name: "FCMTerminalUI", package: "fcm-device"),
            ],
            path: "Benchmarks/FrameRender",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "PlayMode",
            dependencies: [
                "GeneratedProfile",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "FCMEngine", package: "fcm-device"),
                .product(name: "FCMProfiles", package: "fcm-device"),
                .product(name: "FCMTerminalUI", package: "fcm-device"),
            ],
            path: "Benchmarks/PlayMode",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "ControlAPI",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "FCMEngine", package: "fcm-device"),
                .product(name: "FCMProfiles", package: "fcm-device"),
                .product(name: "FCMHTTPAPI", package: "fcm-device"),
                .product(name: "FCMControlAPI", package: "fcm-device"),
            ],
            path: "Benchmarks/ControlAPI",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "Fleet",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "FCMEngine", package: "fcm-device"),
                .product(name: "FCMProfiles", package: "fcm-device"),
                .product(name: "FCMTerminalUI", package: "fcm-device"),
            ],
            path: "Benchmarks/Fleet",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "ReplayThroughput",
            dependencies: [
                "GeneratedProfile",
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "FCMEngine", package: "fcm-device"),
                .product(name: "FCMProfiles", package: "fcm-device"),
            ],
            path: "Benchmarks/ReplayThroughput",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
