// swift-tools-version: 6.1
import PackageDescription

// Benchmarks run on purpose (`swift package benchmark`), never in `swift test`.

/// One benchmark target: Benchmarks/NAME, on the products of this project it uses.
func benchmark(_ name: String, uses products: [String], generatedProfile: Bool = false) -> Target {
    .executableTarget(
        name: name,
        dependencies: (generatedProfile ? ["GeneratedProfile"] : [])
            + [.product(name: "Benchmark", package: "benchmark")]
            + products.map { .product(name: $0, package: "fcm-device") },
        path: "Benchmarks/\(name)",
        plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    )
}

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
        benchmark("FrameRender", uses: ["FCMEngine", "FCMProfiles", "FCMTerminalUI"]),
        benchmark("PlayMode", uses: ["FCMEngine", "FCMProfiles", "FCMTerminalUI"], generatedProfile: true),
        benchmark("ControlAPI", uses: ["FCMEngine", "FCMProfiles", "FCMHTTPPort", "FCMDoor", "FCMControlAPI"]),
        benchmark("Fleet", uses: ["FCMEngine", "FCMProfiles", "FCMTerminalUI"]),
        benchmark("ReplayThroughput", uses: ["FCMEngine", "FCMProfiles"], generatedProfile: true),
    ],
    swiftLanguageModes: [.v6]
)
