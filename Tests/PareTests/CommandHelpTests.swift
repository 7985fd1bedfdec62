import Testing
import TestSupport

/// `pare CMD --help` prints that command's usage and succeeds; `pare --help` lists them all.
@Suite struct CommandHelpTests {
    @Test(arguments: [("thumbnail", "--gain-map drop|keep"), ("convert", "--sampling 4:2:0|4:2:2|4:4:4"),
                      ("decode", "--scale 1/8|1/4|1/2|1"), ("exif", "pare exif IN --json"),
                      ("inspect", "pare inspect IN [--json]"), ("explain", "pare explain IN -o REPORT.html")])
    func eachCommandHasItsUsage(_ command: String, _ expected: String) throws {
        let pare = try #require(CommandRunner.pare, "the pare executable beside the test bundle")
        for flag in ["--help", "-h"] {
            let outcome = try #require(CommandRunner.run(pare, [command, flag]))
            #expect(outcome.status == 0)
            #expect(outcome.standardOutput.hasPrefix("usage:\n  pare \(command) "))
            #expect(outcome.standardOutput.contains(expected))
            #expect(outcome.standardError.isEmpty)
        }
        let all = try #require(CommandRunner.run(pare, ["--help"]))
        #expect(all.status == 0 && all.standardOutput.contains(expected))
    }
}
