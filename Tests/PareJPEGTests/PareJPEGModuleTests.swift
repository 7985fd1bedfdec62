import Testing
import PareJPEG

@Suite struct PareJPEGModuleTests {
    @Test func moduleLinks() {
        #expect(Bool(true))
    }
}
