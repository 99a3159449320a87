import SRT
import Testing

/// `SRTStreamID`: the access control convention's pairs, a plain name with a query, any other text.
@Suite struct SRTStreamIDTests {
    @Test func readsTheConventionAndPlainNames() {
        let id = SRTStreamID("#!::r=live/cam1,m=publish,u=alice,key=secret,r=other")
        #expect(id.isStructured && id.resource == "live/cam1" && id.mode == "publish" && id.user == "alice")
        #expect(id.values["key"] == "secret" && id.values["r"] == "live/cam1")  // the first of a key given twice
        let plain = SRTStreamID("live/cam1?key=secret&x")
        #expect(!plain.isStructured && plain.resource == "live/cam1" && plain.values == ["key": "secret", "x": ""])
        #expect(SRTStreamID("cam=1").resource == "cam=1" && SRTStreamID("cam=1").values.isEmpty)
        #expect(SRTStreamID("").resource == "" && SRTStreamID("#!::").resource == "")
        #expect(SRTStreamID("#!::m=request,,novalue").values == ["m": "request", "novalue": ""])
    }
}
