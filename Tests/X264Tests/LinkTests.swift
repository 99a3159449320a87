import Testing
@testable import X264

@Suite struct LinkTests {
    @Test func placeholder() { #expect(Bool(true)) }
}
