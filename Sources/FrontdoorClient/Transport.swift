import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One request to the server and its answer: JSON out, JSON (or a `FrontdoorError`) back.
extension Frontdoor {
    struct Answer: Sendable {
        let status: Int
        let body: Data
        let retryAfter: String?
    }

    /// Whether a request carries the stored session's bearer.
    enum Bearer {
        case none
        /// Required: no stored session is `unauthorized` without asking the server.
        case required
        /// When `reauthenticating`: a sign-in sent while signed in.
        case ifReauthenticating(Bool)
    }

    /// POSTs `body` to `endpoint` and decodes a 2xx answer as `T`. A 401 `unauthorized` to a
    /// request that carried the bearer forgets the stored session.
    func call<T: Decodable>(
        _ endpoint: String, _ body: JSONBody?, bearer: Bearer = .none, as type: T.Type = T.self
    ) async throws(FrontdoorError) -> T {
        var token: String?
        switch bearer {
        case .none, .ifReauthenticating(false):
            break
        case .required, .ifReauthenticating(true):
            guard let stored = try storedSession() else { throw .unauthorized }
            token = stored.sessionToken
        }
        let encoded: Data?
        do {
            encoded = try body.map { try JSONEncoder().encode($0) }
        } catch {
            throw .invalidRequest
        }
        let answer = try await send(endpoint, body: encoded, authorization: token.map { "Bearer " + $0 })
        guard (200..<300).contains(answer.status) else {
            let error = FrontdoorError(status: answer.status, body: answer.body, retryAfter: answer.retryAfter)
            if token != nil, error == .unauthorized { try forgetSession() }
            throw error
        }
        do {
            return try Self.decoder.decode(T.self, from: answer.body)
        } catch {
            throw .unreadableAnswer(status: answer.status)
        }
    }

    /// The request as it goes out; `method` and `contentType` differ only in tests.
    func send(
        _ endpoint: String, method: String = "POST", body: Data?, contentType: String = "application/json",
        authorization: String? = nil
    ) async throws(FrontdoorError) -> Answer {
        var request = URLRequest(url: baseURL.appendingPathComponent(endpoint), timeoutInterval: 30)
        request.httpMethod = method
        request.setValue(contentType, forHTTPHeaderField: "Content-Type")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let authorization { request.setValue(authorization, forHTTPHeaderField: "Authorization") }
        request.httpBody = body
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await urlSession.data(for: request)
        } catch {
            // A cancelled task is not an outage (URLSession answers it as URLError.cancelled).
            if Task.isCancelled || (error as? URLError)?.code == .cancelled || error is CancellationError { throw .cancelled }
            throw .unreachable(String(describing: error))
        }
        guard let http = response as? HTTPURLResponse else { throw .unreadableAnswer(status: 0) }
        return Answer(status: http.statusCode, body: data, retryAfter: http.value(forHTTPHeaderField: "Retry-After"))
    }

    func remember(_ session: Session) throws(FrontdoorError) -> Session {
        let kept = StoredSession(session)
        do {
            try store.save(kept)
        } catch {
            throw .sessionStore(String(describing: error))
        }
        changes.send(.signedIn(kept))
        return session
    }

    func forgetSession() throws(FrontdoorError) {
        let had = (try? store.load()) != nil
        do {
            try store.clear()
        } catch {
            throw .sessionStore(String(describing: error))
        }
        if had { changes.send(.signedOut) }
    }

    /// RFC 3339 times, as the server writes them (`2026-12-30T10:00:00Z`).
    static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
