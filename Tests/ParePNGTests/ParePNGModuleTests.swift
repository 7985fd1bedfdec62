import Testing
import ParePNG

@Suite struct ParePNGModuleTests {
    @Test func moduleLinks() {
        #expect(Bool(true))
    }
}
