import DevSupport
import Shared
import Testing

/// Issue 19, Info: Apple passes on whatever the person typed there as `givenName` and
/// `familyName`; what looks blank or piles marks on a letter is refused before anything is done.
@Suite struct AppleNameTests {
    @Test(arguments: [("\u{3164}", "Lee"), ("Ada", "\u{2800}"), ("A" + String(repeating: "\u{301}", count: 80), "Lee")])
    func blankLookingOrPiledNamesAreRefusedBeforeTheNonceIsSpent(_ given: String, _ family: String) throws {
        let w = try AppleWorld()
        let nonce = AppleWorld.nonce()
        let token = try w.apple.token(sub: "apple-named", rawNonce: nonce, email: "named@privaterelay.appleid.com")
        let refused = try w.signIn(token, nonce: nonce, givenName: given, familyName: family)
        #expect(refused.status == 400, "\(refused.rawBody)")
        #expect(refused.errorCode == "invalid_request")
        #expect(try w.count(.nonce) == 0 && w.count("accounts") == 0)
        #expect(w.firebase.usersCreated == 0)
        // The same token then signs in with a name that shows.
        let answer = try w.signIn(token, nonce: nonce, givenName: "Ada", familyName: "Lee")
        #expect(answer.status == 200, "\(answer.rawBody)")
        #expect(try w.h.database().query("SELECT name FROM accounts").first?.text(0) == "Ada Lee")
    }
}
