import SystemZones
import XCTest
@testable import Scheduler

/// The fuzzing seed corpus (Tests/Fuzz/corpus/push) stays honest: every `valid-*` file decodes and
/// every `invalid-*` file is rejected. (`valid-timezone`, `valid-calendar-zone` and
/// `invalid-calendar` need the zoneinfo database and the calendar parser.)
final class PushDecoderCorpusTests: XCTestCase {
    func testSeedCorpusFilesDecodeAsTheirNamesSay() throws {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fuzz/corpus/push")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        XCTAssertGreaterThanOrEqual(names.count, 20)
        for name in names {
            let bytes = try [UInt8](Data(contentsOf: directory.appendingPathComponent(name)))
            let result: Result<Push, PushError>
            do throws(PushError) { result = .success(try PushDecoder.decode(bytes, zones: ZoneDatabase.shared)) } catch { result = .failure(error) }
            switch (name.hasPrefix("valid-"), result) {
            case (true, .failure(let e)): XCTFail("\(name) rejected: \(e)")
            case (false, .success): XCTFail("\(name) accepted")
            default: break
            }
        }
    }
}
