@testable import schedd
@testable import Scheduler
import SystemZones
import Foundation
import XCTest

/// schedd(1), schedd-push(5) and the bash/zsh/fish completions: generated from the command table
/// that `--help` and the parser use (the checked-in files must equal the generator's output), free
/// of groff warnings, and — run in each real shell — completing subcommands, options, option values
/// and `clock` actions.
final class ManPageAndCompletionTests: XCTestCase {
    private var root: URL { URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent() }
    private func file(_ path: String) throws -> String { try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8) }
    private let regenerate = "regenerate with scripts/generate-cli-docs.sh"

    /// `man -l PATH` as plain text (overstrike bold and underline removed, as `col -b` does).
    private func plainText(_ page: String) throws -> String {
        let out = try runProcess("/usr/bin/man", ["-l", root.appendingPathComponent(page).path],
                                 environment: ["MANWIDTH": "200", "MANPAGER": "cat"]).stdout
        var plain: [Character] = []
        for c in out {
            if c == "\u{8}" { _ = plain.popLast() } else { plain.append(c) }
        }
        return String(plain)
    }

    /// Every `{…}` example in `text` (from a `{"` or `{` at a line's end to its matching brace), with
    /// runs of white space as one space.
    private func jsonExamples(_ text: String) -> [String] {
        let chars = Array(text)
        var examples: [String] = [], i = 0
        while i < chars.count {
            if chars[i] == "{", i + 1 < chars.count, chars[i + 1] == "\"" || chars[i + 1] == "\n" {
                var depth = 0, j = i
                while j < chars.count {
                    if chars[j] == "{" { depth += 1 } else if chars[j] == "}" { depth -= 1; if depth == 0 { break } }
                    j += 1
                }
                guard j < chars.count else { break }
                examples.append(String(chars[i...j]).split(whereSeparator: \.isWhitespace).joined(separator: " "))
                i = j
            }
            i += 1
        }
        return examples
    }

    /// The page's text as its author wrote it: each line without its macro name, roff's escapes for
    /// quotes, dashes and backslashes decoded, nothing else interpreted.
    private func writtenText(_ source: String) -> String {
        var lines: [String] = []
        for line in source.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix(".\\\"") { continue }
            var text = String(line)
            if text.hasPrefix(".") { text = text.split(separator: " ", maxSplits: 1).dropFirst().first.map(String.init) ?? "" }
            for (escape, plain) in [("\\(dq", "\""), ("\\(aq", "'"), ("\\-", "-"), ("\\&", ""), ("\\e", "\\")] {
                text = text.replacingOccurrences(of: escape, with: plain)
            }
            lines.append(text)
        }
        return lines.joined(separator: "\n")
    }

    /// Issue 18 item 5: schedd(1) and schedd-push(5) render as written — every JSON example that
    /// `man -l` prints is the one in the source, quotes included (roff takes a `"` opening a macro's
    /// argument as a delimiter: `.B {"id": "x"}` printed `{"id": x }`) — and every push example is
    /// one the decoder accepts.
    func testManPages_renderEveryJSONExampleAsWritten_andThePushExamplesDecode() throws {
        var pushes = 0
        for page in ["man/schedd.1", "man/schedd-push.5"] {
            let written = jsonExamples(writtenText(try file(page)))
            let rendered = jsonExamples(try plainText(page))
            XCTAssertGreaterThan(written.count, 3, page)
            XCTAssertEqual(rendered, written, "\(page): an example renders other than written")
            for example in rendered where example.hasPrefix("{\"bk\"") {
                pushes += 1
                XCTAssertNoThrow(try PushDecoder.decode(Array(example.utf8), zones: ZoneDatabase.shared), "\(page): \(example)")
            }
        }
        XCTAssertGreaterThanOrEqual(pushes, 6)
    }

    func testCheckedInFiles_areWhatTheCommandTableGenerates() throws {
        XCTAssertEqual(try file("man/schedd.1"), manPage(), "man/schedd.1 is stale: \(regenerate)")
        XCTAssertEqual(try file("completions/schedd.bash"), completionScript(for: .bash), "\(regenerate)")
        XCTAssertEqual(try file("completions/_schedd"), completionScript(for: .zsh), "\(regenerate)")
        XCTAssertEqual(try file("completions/schedd.fish"), completionScript(for: .fish), "\(regenerate)")
        let printed = try runProcess(Build.schedd, ["help", "--man"])
        XCTAssertEqual(printed.stdout, manPage())
        for shell in CompletionShell.allCases {
            XCTAssertEqual(try runProcess(Build.schedd, ["completion", shell.rawValue]).stdout, completionScript(for: shell))
        }
        XCTAssertEqual(try runProcess(Build.schedd, ["completion", "tcsh"]).status, 2)
    }

    func testManPages_haveNoGroffWarnings_andDocumentEveryCommandOptionAndPushMember() throws {
        for page in ["man/schedd.1", "man/schedd-push.5"] {
            let path = root.appendingPathComponent(page).path
            let groff = try runProcess("/usr/bin/groff", ["-ww", "-z", "-man", path])
            XCTAssertEqual(groff.status, 0, groff.stderr)
            XCTAssertEqual(groff.stderr, "", "\(page): \(groff.stderr)")
            let man = try runProcess("/usr/bin/man", ["--warnings", "-l", path], environment: ["MANWIDTH": "80", "MANPAGER": "cat"])
            XCTAssertEqual(man.status, 0, man.stderr)
            XCTAssertEqual(man.stderr, "", "\(page): \(man.stderr)")
        }
        let rendered = try plainText("man/schedd.1")
        for spec in commandTable {
            XCTAssertTrue(rendered.contains(commandSynopsis(spec)), "schedd(1) lacks '\(commandSynopsis(spec))'")
            for option in spec.options + commonOptions {
                XCTAssertTrue(rendered.contains("--" + option.name), "schedd(1) lacks --\(option.name) of \(spec.name)")
                // What --help says of it, the manual says too.
                XCTAssertTrue(commandHelp(spec).contains(option.help))
            }
            for action in spec.actions { XCTAssertTrue(rendered.contains(action.name), "schedd(1) lacks \(spec.name) \(action.name)") }
        }
        let push = try plainText("man/schedd-push.5")
        for member in PushDecoder.localMembers.sorted() {
            XCTAssertTrue(push.contains("       \(member)") || push.contains(", \(member)\n"), "schedd-push(5) lacks bk.local.\(member)")
        }
        for member in ["messageId", "deepLink", "action", "image", "bk.cancel"] {
            XCTAssertTrue(push.contains(member), "schedd-push(5) lacks \(member)")
        }
        for limit in [PushDecoder.maxPushBytes, PushDecoder.maxIdBytes, PushDecoder.maxTitleBytes, PushDecoder.maxBodyBytes,
                      PushDecoder.maxDataBytes, PushDecoder.maxCancelOnEvents, PushDecoder.maxEventNameBytes,
                      PushDecoder.maxActions, PushDecoder.maxHintBytes, PushDecoder.maxSnoozes] {
            XCTAssertTrue(push.contains(String(limit)), "schedd-push(5) lacks the limit \(limit)")
        }
    }

    // MARK: - Completions, in the real shells

    private func bash(_ words: [String], environment: [String: String] = [:]) throws -> [String] {
        let script = """
        source "$1"; shift
        COMP_WORDS=("$@"); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); COMPREPLY=()
        _schedd
        printf '%s\\n' "${COMPREPLY[@]}"
        """
        let result = try runProcess("/bin/bash", ["--norc", "-c", script, "bash", root.appendingPathComponent("completions/schedd.bash").path] + words,
                                    environment: environment)
        XCTAssertEqual(result.status, 0, result.stderr)
        return result.lines
    }

    private func zsh(_ words: [String], environment: [String: String] = [:]) throws -> [String] {
        // Outside a completion widget zsh has no compadd/_describe: stand-ins print what the script offers.
        let script = """
        compadd() { while (( $# )) && [[ $1 != -- ]]; do shift; done; shift; print -l -- "$@"; }
        _describe() { local __name=${@[-1]}; local -a __items; __items=("${(@P)__name}"); print -l -- "${__items[@]%%:*}"; }
        _files() { print -- '<files>'; }
        _message() { print -- "<$1>"; }
        file=$1; shift
        words=("$@"); CURRENT=$#
        source $file
        """
        let result = try runProcess("/usr/bin/zsh", ["-f", "-c", script, "zsh", root.appendingPathComponent("completions/_schedd").path] + words,
                                    environment: environment)
        XCTAssertEqual(result.status, 0, result.stderr)
        return result.lines.map { $0.replacingOccurrences(of: "\\:", with: ":") }
    }

    private func fish(_ line: String, environment: [String: String] = [:]) throws -> [String] {
        let result = try runProcess("/usr/bin/fish", ["--no-config", "-c",
                                                      "source $argv[1]; complete -C $argv[2]",
                                                      root.appendingPathComponent("completions/schedd.fish").path, line],
                                    environment: environment)
        XCTAssertEqual(result.status, 0, result.stderr)
        return result.lines.map { String($0.split(separator: "\t").first ?? "") }
    }

    func testEachShell_completesSubcommandsOptionsValuesAndActions() throws {
        let commands = commandTable.map(\.name)
        XCTAssertEqual(Set(try bash(["schedd", ""])), Set(commands + ["--help", "--version"]))
        XCTAssertEqual(Set(try zsh(["schedd", ""])), Set(commands))
        XCTAssertEqual(Set(try fish("schedd ")), Set(commands))
        XCTAssertEqual(try bash(["schedd", "li"]), ["list"])
        XCTAssertEqual(try fish("schedd hi"), ["history"])
        for spec in commandTable {
            let options = Set((spec.options + commonOptions).map { "--" + $0.name })
            XCTAssertEqual(Set(try bash(["schedd", spec.name, "--"])), options, spec.name)
            XCTAssertEqual(Set(try zsh(["schedd", spec.name, "--"])), options, spec.name)
            XCTAssertEqual(Set(try fish("schedd \(spec.name) --")), options, spec.name)
        }
        XCTAssertEqual(try bash(["schedd", "add", "T", "--urgency", ""]), ["low", "normal", "critical"])
        XCTAssertEqual(try zsh(["schedd", "add", "T", "--urgency", ""]), ["low", "normal", "critical"])
        XCTAssertEqual(Set(try fish("schedd add T --urgency ")), ["low", "normal", "critical"])
        XCTAssertEqual(try bash(["schedd", "list", "--bus", "s"]), ["session", "system"])
        XCTAssertEqual(Set(try fish("schedd run --notifier ")), ["desktop", "stdout", "none"])
        let actions = Set(commandSpec(named: "clock")!.actions.map(\.name))
        XCTAssertEqual(Set(try bash(["schedd", "clock", ""])), actions)
        XCTAssertEqual(Set(try zsh(["schedd", "clock", ""])), actions)
        XCTAssertEqual(Set(try fish("schedd clock ")), actions)
        XCTAssertEqual(try bash(["schedd", "clock", "advance", ""]), [], "after the action comes its argument")
        XCTAssertEqual(try zsh(["schedd", "push", ""]), ["<files>"])
        XCTAssertEqual(try bash(["schedd", "add", "T", "--at", ""]), [], "free-form values offer nothing")
    }

    /// Issue 36 item 5: a ZONE (`--tz`, `clock zone`) completes from the zoneinfo the daemon reads —
    /// `$TZDIR`'s tzdata.zi (zones and links), else its files without posix/ and right/ — and an ID
    /// (`cancel`, `add --id`) or RUN (`cancel --run`) from `schedd list --json` of the bus on the line,
    /// at most 1,000; with no daemon, nothing.
    func testEachShell_completesZonesFromZoneinfo_andPendingIdsBounded() throws {
        XCTAssertEqual(try bash(["schedd", "add", "T", "--tz", "Europe/Ber"]), ["Europe/Berlin"])
        XCTAssertEqual(try zsh(["schedd", "clock", "zone", "Europe/Ber"]).filter { $0.hasPrefix("Europe/Ber") }, ["Europe/Berlin"])
        XCTAssertEqual(try fish("schedd calendar --tz Europe/Ber"), ["Europe/Berlin"])
        XCTAssertEqual(try bash(["schedd", "clock", "zone", "Asia/Tok"]), ["Asia/Tokyo"])
        let zones = try TemporaryDirectory()
        defer { zones.remove() }
        try "# version test\nZ Mars/Olympus 0 - OMT\nL Mars/Olympus Mars/Base\nR X 1 2 - Ja 1 0 0 -\n"
            .write(toFile: zones.file("tzdata.zi"), atomically: true, encoding: .utf8)
        let fromIndex = ["TZDIR": zones.path]
        XCTAssertEqual(try bash(["schedd", "add", "T", "--tz", ""], environment: fromIndex), ["Mars/Olympus", "Mars/Base"])
        XCTAssertEqual(try zsh(["schedd", "run", "--tz", ""], environment: fromIndex), ["Mars/Olympus", "Mars/Base"])
        XCTAssertEqual(try fish("schedd clock zone ", environment: fromIndex), ["Mars/Base", "Mars/Olympus"])
        try FileManager.default.removeItem(atPath: zones.file("tzdata.zi"))
        for file in ["Venus/Maxwell", "posix/Venus/Maxwell", "right/Venus/Maxwell", "zone.tab"] {
            try FileManager.default.createDirectory(atPath: (zones.file(file) as NSString).deletingLastPathComponent,
                                                    withIntermediateDirectories: true)
            XCTAssertTrue(FileManager.default.createFile(atPath: zones.file(file), contents: Data()))
        }
        XCTAssertEqual(try bash(["schedd", "clock", "zone", ""], environment: fromIndex), ["Venus/Maxwell"])
        XCTAssertEqual(try fish("schedd add T --tz ", environment: fromIndex), ["Venus/Maxwell"])

        let h = try ScheddHarness(fakeClock: "2026-12-01T08:00:00Z")
        defer { h.tearDown() }
        let ndjson = (0..<1_200).map { #"{"bk":{"local":{"id":"run_\#($0 / 100):n\#($0)","at":"2026-12-02T08:00:00Z","title":"T"}}}"# }
            + [#"{"bk":{"local":{"id":"with space","at":"2026-12-01T09:00:00Z","title":"T"}}}"#]
        XCTAssertEqual(try h.cli(["push", "-"], stdin: ndjson.joined(separator: "\n")).status, 0)
        let line = [Build.schedd, "cancel", "--bus", h.bus.address]
        let offered = try bash(line + [""])
        XCTAssertEqual(offered.count, 1_000, "bounded")
        XCTAssertEqual(offered.first, "with\\ space", "quoted for the shell, soonest first")
        XCTAssertEqual(try bash(line + ["run_3:n30"]), ["run_3:n300", "run_3:n301", "run_3:n302", "run_3:n303", "run_3:n304",
                                                        "run_3:n305", "run_3:n306", "run_3:n307", "run_3:n308", "run_3:n309"])
        XCTAssertEqual(try bash(line + ["--run", "run_"]), (0...9).map { "run_\($0)" })
        XCTAssertEqual(try zsh(line + ["with"]).filter { $0.hasPrefix("with") }, ["with space"])
        XCTAssertEqual(try zsh(line + [""]).count, 1_000)
        XCTAssertEqual(try fish(line.joined(separator: " ") + " run_3:n30"), (300...309).map { "run_3:n\($0)" })
        XCTAssertEqual(try fish(line.joined(separator: " ") + " run_11:n119"), [], "past the first 1,000 (soonest first)")
        XCTAssertEqual(try bash(line + ["run_11:n119"]), [], "past the first 1,000")
        XCTAssertEqual(try bash([Build.schedd, "add", "T", "--bus", h.bus.address, "--id", "with"]), ["with\\ space"])
        // No daemon on that bus: nothing offered, and no error on the terminal.
        h.stopDaemon()
        XCTAssertEqual(try bash(line + [""]), [])
        XCTAssertEqual(try fish(line.joined(separator: " ") + " "), [])
    }

    func testInstallScript_installsTheManPagesAndCompletionsWhereToolsLook() throws {
        let stage = NSTemporaryDirectory() + "schedd-install-docs-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: stage) }
        let result = try runProcess("/bin/bash", [root.appendingPathComponent("scripts/install.sh").path, "PREFIX=/usr/local",
                                                  "DESTDIR=\(stage)", "BINARY=/bin/true", "--no-build"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let installed = ["man/schedd.1": "/usr/local/share/man/man1/schedd.1",
                         "man/schedd-push.5": "/usr/local/share/man/man5/schedd-push.5",
                         "completions/schedd.bash": "/usr/local/share/bash-completion/completions/schedd",
                         "completions/_schedd": "/usr/local/share/zsh/site-functions/_schedd",
                         "completions/schedd.fish": "/usr/local/share/fish/vendor_completions.d/schedd.fish"]
        for (source, destination) in installed {
            XCTAssertEqual(try? String(contentsOfFile: stage + destination, encoding: .utf8), try file(source), destination)
        }
        // man finds the installed page through a MANPATH of the staged tree.
        let man = try runProcess("/usr/bin/man", ["-w", "schedd-push"], environment: ["MANPATH": stage + "/usr/local/share/man"])
        XCTAssertEqual(man.stdout.trimmingCharacters(in: .whitespacesAndNewlines), stage + "/usr/local/share/man/man5/schedd-push.5")
    }

    /// Issue 21: every `Documentation=` of the installed units resolves in the installation — `man:` pages
    /// through `man -w` with a MANPATH of the staged tree, `file:` URIs to installed files — for both
    /// prefixes install.sh knows; a web address (the project has none) would fail the check.
    func testUnitsDocumentation_resolvesToWhatIsInstalled() throws {
        for prefix in ["/usr/local", "/usr"] {
            let stage = NSTemporaryDirectory() + "schedd-install-unitdocs-\(UUID().uuidString)"
            defer { try? FileManager.default.removeItem(atPath: stage) }
            let result = try runProcess("/bin/bash", [root.appendingPathComponent("scripts/install.sh").path, "PREFIX=\(prefix)",
                                                      "DESTDIR=\(stage)", "BINARY=/bin/true", "--no-build"])
            XCTAssertEqual(result.status, 0, result.stderr)
            let units = ["\(stage)\(prefix)/lib/systemd/user/schedd.service", "\(stage)\(prefix)/lib/systemd/system/schedd-system.service"]
            let check = try runProcess("/bin/bash", [root.appendingPathComponent("Tests/Support/check-unit-docs.sh").path, stage] + units)
            XCTAssertEqual(check.status, 0, check.stdout + check.stderr)
            for unit in units {
                for uri in ["man:schedd(1)", "man:schedd-push(5)", "file://\(prefix)/share/doc/schedd/units.md"] {
                    XCTAssertTrue(check.stdout.contains("ok   \(unit): \(uri) → \(stage)"), "\(uri) of \(unit):\n\(check.stdout)")
                }
            }
        }
        // The check fails on what is not installed: a web address and a missing file.
        let bad = NSTemporaryDirectory() + "schedd-bad-\(UUID().uuidString).service"
        defer { try? FileManager.default.removeItem(atPath: bad) }
        try "[Unit]\nDocumentation=https://github.com/schedd/schedd file:///nowhere/units.md\n".write(toFile: bad, atomically: true, encoding: .utf8)
        let refused = try runProcess("/bin/bash", [root.appendingPathComponent("Tests/Support/check-unit-docs.sh").path, "/", bad])
        XCTAssertEqual(refused.status, 1)
        XCTAssertEqual(refused.stderr.split(separator: "\n").filter { $0.hasPrefix("FAIL") }.count, 2, refused.stderr)
    }
}
