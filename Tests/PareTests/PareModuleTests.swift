import Testing
import Pare

@Suite struct PareModuleTests {
    @Test func moduleLinks() {
        #expect(Bool(true))
    }
}
