import Foundation
import TestPrerequisites
import XCTest

/// interfaces/org.schedd.Scheduler1.xml and org.schedd.UnifiedPush1.xml (issue 21): in step with what the
/// daemon serves (its Introspect, built by sd-bus from Sources/CSchedBus/vtable.c), documented member by
/// member, and good enough for gdbus-codegen to make a working C client that talks to a testbed.
final class InterfaceXMLTests: XCTestCase {
    static let files = ["interfaces/org.schedd.Scheduler1.xml", "interfaces/org.schedd.UnifiedPush1.xml"]
    private var root: URL { DesktopHarness.repoRoot }
    private var drift: String { root.appendingPathComponent("Tests/Support/dbus/interface_drift.py").path }

    /// The drift check: fails whenever a method or signal is added to, removed from or changed in the
    /// vtable without the XML following; its output says what to paste where.
    func testInterfaceFiles_areInStepWithTheDaemonsIntrospect_andDocumented() throws {
        let h = try ScheddHarness(fakeClock: "2026-03-08T05:00:00Z")
        defer { h.tearDown() }
        let result = try runProcess(DesktopHarness.python, [drift, "--address", h.bus.address]
                                    + Self.files.map { root.appendingPathComponent($0).path })
        XCTAssertEqual(result.status, 0, "interfaces/*.xml drifted from Sources/CSchedBus/vtable.c; update them as it says:\n"
                       + result.stdout + result.stderr)
        XCTAssertTrue(result.stdout.contains("in step"), result.stdout)
    }

    /// The check can fail, and says exactly what to change: a served method missing from the file (with
    /// the XML to add), an argument renamed (with the element to replace it by), a member the daemon does
    /// not serve, a member whose doc string is still TODO.
    func testDriftCheck_namesEachDifference_andTheXMLToPaste() throws {
        let h = try ScheddHarness(fakeClock: "2026-03-08T05:00:00Z")
        defer { h.tearDown() }
        var xml = try String(contentsOf: root.appendingPathComponent(Self.files[0]), encoding: .utf8)
        let clockNext = try XCTUnwrap(xml.range(of: #"    <method name="ClockNext">"#))
        let end = try XCTUnwrap(xml.range(of: "</method>\n", range: clockNext.upperBound..<xml.endIndex))
        xml.removeSubrange(clockNext.lowerBound..<end.upperBound)
        xml = xml.replacingOccurrences(of: #"<arg type="s" name="zone" direction="in"/>"#, with: #"<arg type="s" name="tz" direction="in"/>"#)
        let track = try XCTUnwrap(xml.range(of: #"<method name="Track">"#))
        let trackDoc = try XCTUnwrap(xml.range(of: #"value="#, range: track.upperBound..<xml.endIndex))
        xml.replaceSubrange(trackDoc, with: #"value="TODO later" was="#)
        xml = xml.replacingOccurrences(of: "  </interface>", with: "    <method name=\"Frobnicate\"/>\n  </interface>")
        let copy = h.directory.file("Scheduler1.xml")
        try xml.write(toFile: copy, atomically: true, encoding: .utf8)
        let result = try runProcess(DesktopHarness.python, [drift, "--address", h.bus.address, copy])
        XCTAssertEqual(result.status, 1, result.stdout + result.stderr)
        XCTAssertTrue(result.stdout.contains("method ClockNext(out s clock) is served (Sources/CSchedBus/vtable.c) but not described; add:\n"
                                             + "    <method name=\"ClockNext\">"), result.stdout)
        XCTAssertTrue(result.stdout.contains("method ClockZone differs — file: (in s tz, out s clock) [];"
                                             + " daemon: (in s zone, out s clock) []; replace it with:"), result.stdout)
        XCTAssertTrue(result.stdout.contains("method Frobnicate is described but the daemon does not serve it"), result.stdout)
        XCTAssertTrue(result.stdout.contains("method Track needs its org.gtk.GDBus.DocString"), result.stdout)
        XCTAssertTrue(result.stdout.contains("4 difference(s)"), result.stdout)
    }

    /// gdbus-codegen (Debian's libglib2.0-dev-bin) turns the installed XML into a C proxy; a small C
    /// program (Tests/Support/dbus/gdbus_client.c) calls Push, ListPage, ClockAdvance, ListPage and
    /// UnifiedPush1.List through it inside `schedd testbed`. The generated docs carry every doc string.
    func testGdbusCodegenClient_callsPushListPageAndClockAdvance_againstATestbed() throws {
        for tool in ["/usr/bin/gdbus-codegen", "/usr/bin/cc", "/usr/bin/pkg-config"] {
            try requirePrerequisite(FileManager.default.isExecutableFile(atPath: tool), "\(tool) (scripts/install-deps.sh)")
        }
        let flags = try runProcess("/usr/bin/pkg-config", ["--cflags", "--libs", "gio-2.0", "gio-unix-2.0"])
        try requirePrerequisite(flags.status == 0, "gio-2.0 development files (libglib2.0-dev): \(flags.stderr)")
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let xml = Self.files.map { root.appendingPathComponent($0).path }
        let generated = try runProcess("/usr/bin/gdbus-codegen", ["--interface-prefix", "org.schedd.", "--c-namespace", "Schedd",
                                                                 "--generate-c-code", work.file("schedd-generated"),
                                                                 "--generate-docbook", work.file("doc")] + xml)
        XCTAssertEqual(generated.status, 0, generated.stderr)
        let compiled = try runProcess("/usr/bin/cc", ["-Wall", "-Werror", "-I", work.path, "-o", work.file("client"),
                                                      root.appendingPathComponent("Tests/Support/dbus/gdbus_client.c").path,
                                                      work.file("schedd-generated.c")]
                                      + flags.stdout.split(whereSeparator: \.isWhitespace).map(String.init))
        XCTAssertEqual(compiled.status, 0, compiled.stdout + compiled.stderr)
        let push = #"{"bk":{"messageId":"m-c","local":{"id":"run_1:c","at":"2026-03-08T05:01:00Z","title":"From C"}}}"#
        let run = try runProcess(Build.schedd, ["testbed", "--fake-clock", "2026-03-08T05:00:00Z", "--notifier", "none", "--",
                                                work.file("client"), push, "120000000"])
        XCTAssertEqual(run.status, 0, run.stdout + run.stderr)
        let lines = run.lines
        XCTAssertEqual(lines.count, 6, run.stdout)
        guard lines.count == 6 else { return }
        XCTAssertEqual(lines[0], #"push [{"id":"run_1:c","status":"scheduled","next":"2026-03-08T05:01:00Z"}]"#)
        XCTAssertTrue(lines[1].hasPrefix(#"list [{"id":"run_1:c","next":"2026-03-08T05:01:00Z","title":"From C""#), lines[1])
        XCTAssertTrue(lines[1].hasSuffix(" -"), "one page: no next cursor: \(lines[1])")
        XCTAssertEqual(lines[2], #"advance {"now":"2026-03-08T05:02:00Z","zone":"UTC","fake":true}"#)
        XCTAssertEqual(lines[3], "list [] -", "it fired during the advance")
        XCTAssertEqual(lines[4], "error org.schedd.Scheduler1.Error.InvalidPush")
        XCTAssertEqual(lines[5], "registrations []")

        // Every method's and signal's doc string reaches the generated documentation (gdbus-codegen 2.74
        // leaves the interface's own out of DocBook, so the first annotation, the interface's, is skipped).
        for (file, name) in zip(xml, ["org.schedd.Scheduler1", "org.schedd.UnifiedPush1"]) {
            let doc = try String(contentsOfFile: work.file("doc-\(name).xml"), encoding: .utf8)
            let source = try String(contentsOfFile: file, encoding: .utf8)
            let docs = source.components(separatedBy: #"<annotation name="org.gtk.GDBus.DocString" value="#).dropFirst(2)
            XCTAssertGreaterThan(docs.count, 4, file)
            for item in docs {
                let quote = item.first!
                let value = item.dropFirst().prefix { $0 != quote }
                // gdbus-codegen writes the text as XML character data; compare the first words.
                let words = String(value.prefix(24)).replacingOccurrences(of: "&apos;", with: "'")
                    .replacingOccurrences(of: "&quot;", with: "\"")
                XCTAssertTrue(doc.contains(words.replacingOccurrences(of: "&", with: "&amp;"))
                              || doc.contains(words), "\(name): '\(words)' not in the generated docs")
            }
        }
    }
}
