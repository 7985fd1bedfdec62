import Testing
import PareEXIF

@Suite struct PareEXIFModuleTests {
    @Test func moduleLinks() {
        #expect(Bool(true))
    }
}
