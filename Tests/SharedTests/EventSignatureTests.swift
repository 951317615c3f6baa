import Testing
@testable import Shared

/// The signature scheme of DESIGN.md ("Events") and the retry schedule, with time passed in.
@Suite struct EventSignatureTests {
    static let secret = Array("frontdoor-events-test-secret-0123456789".utf8)
    static let body = Array(#"{"id":"e1","type":"account.created"}"#.utf8)

    @Test func headerIsTimeAndLowercaseHexHMACOfTimeDotBody() {
        // Computed independently: Python's hmac.new(secret, b"1700000000." + body, sha256).hexdigest().
        #expect(EventSignature.header(body: Self.body, secret: Self.secret, time: 1_700_000_000)
            == "t=1700000000,v1=1d42fe10cbc4791946946da4801f1ddf5476755b9fc7fc12749f85897b5e9777")
    }

    @Test func aReceiverAcceptsItsOwnAndRefusesTheRest() {
        let t: UnixTime = 1_700_000_000
        let header = EventSignature.header(body: Self.body, secret: Self.secret, time: t)
        #expect(EventSignature.verify(header: header, body: Self.body, secret: Self.secret, now: t + 299) == nil)
        #expect(EventSignature.verify(header: header, body: Self.body, secret: Self.secret, now: t + 301) == .stale)
        #expect(EventSignature.verify(header: header, body: Self.body, secret: Self.secret, now: t - 301) == .stale)
        #expect(EventSignature.verify(header: header, body: Self.body + [0x20], secret: Self.secret, now: t) == .mismatch)
        let other = Array("another-secret-of-at-least-32-bytes-long".utf8)
        #expect(EventSignature.verify(header: header, body: Self.body, secret: other, now: t) == .mismatch)
        // A timestamp that was not signed cannot be swapped in to pass the age check.
        let moved = header.replacingFirst("t=1700000000", with: "t=1700000400")
        #expect(EventSignature.verify(header: moved, body: Self.body, secret: Self.secret, now: t + 400) == .mismatch)
        for broken in [nil, "", "v1=abc", "t=1700000000", "t=x,v1=00", "garbage"] {
            #expect(EventSignature.verify(header: broken, body: Self.body, secret: Self.secret, now: t) == .malformed)
        }
        // Several v1 values (a receiver rotating its secret sees old and new): one matching is enough.
        let v1 = String(header.split(separator: ",")[1])
        #expect(EventSignature.verify(
            header: "t=\(t),v1=\(String(repeating: "0", count: 64)),\(v1)", body: Self.body, secret: Self.secret, now: t)
            == nil)
    }

    @Test func constantTimeEqualityIsEquality() {
        #expect(EventSignature.constantTimeEqual([1, 2, 3], [1, 2, 3]))
        #expect(!EventSignature.constantTimeEqual([1, 2, 3], [1, 2, 4]))
        #expect(!EventSignature.constantTimeEqual([1, 2, 3], [1, 2]))
        #expect(EventSignature.constantTimeEqual([], []))
    }

    @Test func backoffStartsAtRetryAfterAndDoublesToTheMaximum() {
        let waits = (1...9).map { EventBackoff.delay(afterFailures: Int64($0), first: 60, max: 3600) }
        #expect(waits == [60, 120, 240, 480, 960, 1920, 3600, 3600, 3600])
        #expect(EventBackoff.delay(afterFailures: 1_000_000, first: 60, max: 3600) == 3600)
        #expect(EventBackoff.delay(afterFailures: 3, first: 1, max: 2) == 2)
        #expect(EventBackoff.delay(afterFailures: 70, first: Int64.max / 4, max: Int64.max) == Int64.max)
    }

    @Test func theBodyIsTheContractsAndNothingMore() {
        let event = Event(
            id: "AAAAAAAAAAAAAAAAAAAAAA", kind: .linked, accountId: "acc", occurredAt: 1_767_225_600,
            providers: ["google", "password"], provider: "google")
        #expect(event.body == #"{"id":"AAAAAAAAAAAAAAAAAAAAAA","type":"account.linked","accountId":"acc","#
            + #""occurredAt":"2026-01-01T00:00:00Z","providers":["google","password"],"provider":"google"}"#)
        let deleted = Event(id: "x", kind: .deleted, accountId: "acc", occurredAt: 0, providers: [])
        #expect(deleted.body == #"{"id":"x","type":"account.deleted","accountId":"acc","occurredAt":"1970-01-01T00:00:00Z","providers":[]}"#)
    }
}

extension String {
    func replacingFirst(_ target: String, with replacement: String) -> String {
        guard let range = firstRange(of: target) else { return self }
        return String(self[..<range.lowerBound]) + replacement + String(self[range.upperBound...])
    }
}
