// swift-tools-version:6.0
import PackageDescription

// Module names: the Sources/Calendar folder is the `SchedCalendar` module so that files importing
// both it and Foundation never see two `Calendar` types.
let package = Package(
    name: "schedd",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "schedd", targets: ["schedd"]),
        .executable(name: "schedd-bench", targets: ["schedd-bench"]),
        .library(name: "SchedCalendar", targets: ["SchedCalendar"]),
        .library(name: "Scheduler", targets: ["Scheduler"]),
        .library(name: "ScheddBus", targets: ["ScheddBus"]),
        .library(name: "ScheddApps", targets: ["ScheddApps"]),
        // For apps: typed pushes, async calls, typed errors and signals over the D-Bus API.
        .library(name: "ScheddClient", targets: ["ScheddClient"]),
        // For test suites (XCTest, Swift Testing): a private fake-clock schedd per test.
        .library(name: "ScheddTestKit", targets: ["ScheddTestKit"]),
    ],
    targets: [
        // libsqlite3 and libcrypto are linked statically (their module maps `link ":libsqlite3.a"` and
        // `":libcrypto.a"`, both in the -dev packages), so a `schedd` process maps and relocates only the
        // parts it uses: docs/cli.md "Start-up cost". Hence no pkgConfig: its `--libs` would add the
        // shared libraries back.
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CSystemd", path: "Sources/CSystemd", pkgConfig: "libsystemd",
                       providers: [.apt(["libsystemd-dev"])]),
        .systemLibrary(name: "CCrypto", path: "Sources/CCrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CLinuxProcess", path: "Sources/CLinuxProcess"),
        // The one Linux syscall seam (ARCHITECTURE: one shim per system library): file descriptors,
        // pidfds, spawning and reaping, timerfd/inotify, sockets, the user database; errors as `Errno`.
        .target(name: "ScheddSystem", dependencies: ["CLinuxProcess"], path: "Sources/ScheddSystem"),
        // libcrypto's one shim (CryptoShim.swift): SHA-256 for the engine's digests, and the ECDH, HKDF,
        // AES-128-GCM and random bytes of UnifiedPush's RFC 8291 decryption.
        .target(name: "ScheddCrypto", dependencies: ["CCrypto"], path: "Sources/ScheddCrypto"),
        // Pure: calendar specs, instants, zone rules as values (TZif and POSIX TZ parsed from bytes).
        .target(name: "SchedCalendar", path: "Sources/Calendar"),
        // The system zone database above the pure layers: TZDIR, /etc/localtime, TZ, zone file reading.
        .target(name: "SystemZones", dependencies: ["SchedCalendar", "ScheddSystem"], path: "Sources/SystemZones"),
        // Apps (CONTRACT §8): caller → app id, desktop files, Exec= command lines. Pure parsing plus
        // procfs reads; no bus (the daemon hands it bus-verified PIDs).
        .target(name: "ScheddApps", dependencies: ["ScheddSystem", "Scheduler"], path: "Sources/ScheddApps"),
        // UnifiedPush connector: RFC 8188/8291 decryption (libcrypto through ScheddCrypto), registrations.
        .target(name: "ScheddPush", dependencies: ["ScheddCrypto", "SchedCalendar", "Scheduler", "ScheddBus", "CSchedBus", "ScheddProtocol", "ScheddSystem"],
                path: "Sources/ScheddPush"),
        .target(name: "Scheduler", dependencies: ["SchedCalendar", "CSQLite", "ScheddCrypto", "ScheddSystem"], path: "Sources/Scheduler"),
        .target(name: "CSchedBus", dependencies: ["CSystemd"], path: "Sources/CSchedBus"),
        // The one sd-bus/sd-event seam: connections, async calls, matches, served vtables, bus-verified
        // credentials, the event loop and loop-bound values.
        .target(name: "ScheddBus", dependencies: ["CSystemd", "CSchedBus", "ScheddSystem"], path: "Sources/ScheddBus"),
        .target(name: "ScheddDesktop", dependencies: ["SchedCalendar", "Scheduler", "ScheddBus", "ScheddApps", "ScheddSystem"],
                path: "Sources/ScheddDesktop"),
        // The service's calls without the bus: typed method arguments, their checks, reply bounds. Pure,
        // so the dispatch fuzz harness (Tests/Fuzz/FuzzDispatch.swift) links it without sd-bus.
        .target(name: "ScheddService", dependencies: ["SchedCalendar", "Scheduler", "ScheddProtocol", "ScheddSystem"], path: "Sources/ScheddService"),
        // The Foundation-free base of ScheddClient: bus names, error names and ScheddError, the pagers and
        // the blocking client the CLI is built on (Foundation would cost the CLI ~14 ms a process).
        .target(name: "ScheddClientCore", dependencies: ["ScheddBus", "ScheddProtocol"], path: "Sources/ScheddClientCore"),
        // The D-Bus names and error names of org.schedd.Scheduler1, shared by the daemon and the clients.
        .target(name: "ScheddProtocol", path: "Sources/ScheddProtocol"),
        .target(name: "ScheddClient", dependencies: ["ScheddBus", "ScheddClientCore", "ScheddSystem"], path: "Sources/ScheddClient"),
        .target(name: "ScheddTestKit", dependencies: ["ScheddClient", "ScheddSystem"], path: "Sources/ScheddTestKit"),
        .executableTarget(name: "schedd", dependencies: ["SchedCalendar", "Scheduler", "CSystemd", "CSchedBus",
                                                        "ScheddBus", "ScheddDesktop", "ScheddPush", "ScheddApps",
                                                        "ScheddService", "ScheddSystem", "ScheddClientCore", "SystemZones"],
                          path: "Sources/schedd",
                          // lld (the toolchain's; gold cannot) packs the executable's ~22,000 relative
                          // relocations into DT_RELR (glibc 2.36): docs/cli.md "Start-up cost".
                          linkerSettings: [.unsafeFlags(["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"])]),
        .executableTarget(name: "schedd-bench", dependencies: ["SchedCalendar", "SystemZones", "Scheduler", "ScheddCrypto", "CSQLite", "SeededRandomness",
                                                              "ScheddService"],
                          path: "Benchmarks/schedd-bench"),
        // A seeded PRNG shared by the test targets and the benchmark (not shipped in the products).
        .target(name: "SeededRandomness", path: "Tests/SeededRandomness"),
        // Skip-or-fail for missing test prerequisites (fail under SCHEDD_REQUIRE_REFERENCES=1, as in CI).
        .target(name: "TestPrerequisites", path: "Tests/TestPrerequisites"),
        .testTarget(name: "CalendarTests", dependencies: ["SchedCalendar", "SystemZones", "SeededRandomness", "TestPrerequisites"], path: "Tests/CalendarTests"),
        .testTarget(name: "SystemZonesTests", dependencies: ["SystemZones", "SchedCalendar", "ScheddSystem"], path: "Tests/SystemZonesTests"),
        .testTarget(name: "ScheddSystemTests", dependencies: ["ScheddSystem"], path: "Tests/ScheddSystemTests"),
        .testTarget(name: "ScheddAppsTests", dependencies: ["ScheddApps", "Scheduler"], path: "Tests/ScheddAppsTests"),
        .testTarget(name: "SchedulerTests", dependencies: ["Scheduler", "SchedCalendar", "SystemZones", "ScheddCrypto", "SeededRandomness",
                                                      "TestPrerequisites"],
                    path: "Tests/SchedulerTests"),
        // The desktop notifier's pure parts: circuit breaker, on-screen map, interaction decoder.
        .testTarget(name: "ScheddDesktopTests", dependencies: ["ScheddDesktop", "Scheduler", "SchedCalendar"],
                    path: "Tests/ScheddDesktopTests"),
        // ScheddService's parts without the bus: the fair queue, the call table, wire arguments, time
        // arguments, reply JSON, group commit, delivery and wake arming over a real SQLite store.
        .testTarget(name: "ScheddServiceTests", dependencies: ["ScheddService", "Scheduler", "SchedCalendar", "SystemZones",
                                                           "TestPrerequisites"],
                    path: "Tests/ScheddServiceTests"),
        // ScheddBus's sd-bus shim against a private dbus-daemon.
        .testTarget(name: "ScheddBusTests", dependencies: ["ScheddBus", "TestPrerequisites"], path: "Tests/ScheddBusTests"),
        // libcrypto's shim against published vectors (FIPS 180-2, RFC 5869, RFC 8188, RFC 8291).
        .testTarget(name: "ScheddCryptoTests", dependencies: ["ScheddCrypto"], path: "Tests/ScheddCryptoTests"),
        .testTarget(name: "ScheddPushTests", dependencies: ["ScheddPush", "ScheddCrypto", "ScheddBus", "Scheduler", "SchedCalendar",
                                                     "TestPrerequisites"], path: "Tests/ScheddPushTests"),
        // ScheddClient and ScheddTestKit against the real daemon (and the README's Swift example).
        .testTarget(name: "ScheddKitTests", dependencies: ["ScheddClient", "ScheddTestKit", "schedd"],
                    path: "Tests/ScheddKitTests"),
        .testTarget(name: "ScheddTests", dependencies: ["schedd", "SchedCalendar", "SystemZones", "Scheduler", "ScheddBus", "ScheddDesktop",
                                                    "ScheddService", "ScheddApps", "ScheddClientCore", "ScheddSystem", "SeededRandomness",
                                                    "TestPrerequisites"],
                    path: "Tests/ScheddTests"),
    ],
    swiftLanguageModes: [.v6]
)
