#if canImport(Glibc)
import Glibc
#endif

/// The whole life of one CGI process: read, check, handle, answer, tidy up, exit.
public enum Endpoint {
    /// Runs `handler` for a POST with a JSON object body (or, with `bodyOptional`, no body at all)
    /// and never returns. Every path prints exactly one CGI answer and one log line on stderr.
    /// `durability` is what the endpoint's commits must survive (see `Database.Durability`).
    /// `readsBody: false` takes any method and reads nothing from stdin (the session check: nginx
    /// sends it no body). `precheck` may refuse the request before the config is read, as the
    /// method check does. `housekeeping: false` leaves pruning expired rows to other requests.
    /// `configScope`: how much of the config the endpoint reads (see `Config.Scope`). `rawBody`: a
    /// POST whose body the handler reads itself from `request.body` (a provider's, in its own format).
    public static func main(
        name: String, bodyOptional: Bool = false, readsBody: Bool = true, rawBody: Bool = false,
        precheck: (CGIRequest) throws(FrontdoorError) -> Void = { _ in }, configScope: Config.Scope = .request,
        durability: Database.Durability = .powerCutSafe, housekeeping: Bool = true,
        handler: (RequestContext) throws(FrontdoorError) -> CGIResponse
    ) -> Never {
        let started = Clock.monotonicMillis()
        // A ceiling before anything else; replaced by the configured one once the config is read.
        Lifetime.start(seconds: 30)
        let environment = CGIEnvironment.process()
        kept.environment = environment
        var outcome = answer(
            name: name, environment: environment, bodyOptional: bodyOptional, readsBody: readsBody, rawBody: rawBody,
            precheck: precheck, configScope: configScope, durability: durability, handler: handler)
        if let context = outcome.context, outcome.response.status < 300, !context.config.usesPostgres,
            context.wroteToStore
        {
            // A write is answered 2xx only while no restore has begun (see `Door`; PostgreSQL has
            // no restore of ours to wait for).
            TestHooks.pause("answer-ready")
            let permit = Door.AnswerPermit(databasePath: context.config.databasePath)
            if permit.closed {
                // What it wrote went to the file the restore moves aside: nothing more may follow it.
                outcome = Outcome(response: CGIResponse(error: Door.closedError), detail: Door.closedError.detail)
            } else {
                TestHooks.pause("answer-permitted")
            }
            kept.answer = outcome.response.write()
            permit.release()
        } else {
            kept.answer = outcome.response.write()
        }
        kept.logLine = logLine(name: name, response: outcome.response, millis: Clock.monotonicMillis() - started)
        FileIO.log(kept.logLine)
        if let detail = outcome.detail { FileIO.log("frontdoor endpoint=\(name) detail=\(detail)") }
        if outcome.configBroken { exit(1) }
        if let context = outcome.context { EventDelivery.scheduleAfterAnswer(context) }
        // Every process re-reads the WAL when it opens: the one whose commit made it long empties it.
        if let context = outcome.context, context.usedDatabase, let db = try? context.database(),
            db.walFrameCount >= Database.walTidyFrames
        {
            context.runAfterAnswer { db.tidyWAL() }
        }
        if housekeeping, let context = outcome.context, context.usedDatabase, Housekeeping.isDue() {
            context.runAfterAnswer {
                if let db = try? context.database() { _ = try? Housekeeping.prune(db, now: context.now) }
            }
        }
        // A deletion's checkpoint that readers kept from finishing is paid by whoever comes next,
        // last, after anything else this process writes.
        if let context = outcome.context, context.usedDatabase, Database.isCheckpointOwed(context.config.databasePath) {
            context.runAfterAnswer {
                if let db = try? context.database(), !db.payOwedCheckpoint() {
                    SysLog.warning("frontdoor endpoint=\(name) checkpoint=still-owed")
                }
            }
        }
        if let context = outcome.context, !context.afterwards.isEmpty {
            Lifetime.detachFromClient()
            for work in context.afterwards { work() }
        }
        exit(0)
    }

    /// What the process holds until it exits, never freed: the first string storage a process
    /// frees costs ~38 K instructions (see `CGIResponse.write(to:)`), so a refusal frees none.
    private struct KeptUntilExit {
        var environment = CGIEnvironment()
        var answer = ""
        var logLine = ""
    }
    nonisolated(unsafe) private static var kept = KeptUntilExit()

    /// `frontdoor endpoint=NAME status=N error=CODE ms=M`, built in one allocation.
    static func logLine(name: String, response: CGIResponse, millis: Double) -> String {
        let code = response.loggedCode
        let ms = formatMillis(millis)
        var line = String()
        line.reserveCapacity(48 + name.utf8.count + code.utf8.count + ms.utf8.count)
        line += "frontdoor endpoint="
        line += name
        line += " status="
        line += String(response.status)
        line += " error="
        line += code
        line += " ms="
        line += ms
        return line
    }

    struct Outcome {
        var response: CGIResponse
        var detail: String?
        var context: RequestContext?
        var configBroken = false
    }

    static func answer(
        name: String, environment: CGIEnvironment, bodyOptional: Bool, readsBody: Bool = true, rawBody: Bool = false,
        precheck: (CGIRequest) throws(FrontdoorError) -> Void = { _ in }, configScope: Config.Scope = .request,
        durability: Database.Durability = .powerCutSafe,
        handler: (RequestContext) throws(FrontdoorError) -> CGIResponse
    ) -> Outcome {
        let request: CGIRequest
        // Method, content type and body shape are judged before the config is read: the cheapest
        // refusals stay cheapest.
        let body: JSONValue
        if readsBody {
            do throws(FrontdoorError) {
                request = try CGIRequest.read(environment: environment)
                if rawBody {
                    guard request.method == "POST" else {
                        throw FrontdoorError(.methodNotAllowed, "Only POST is accepted here.")
                    }
                }
                body = rawBody ? .object([]) : try parseBody(request, optional: bodyOptional)
            } catch {
                return Outcome(response: CGIResponse(error: error), detail: error.detail)
            }
        } else {
            request = CGIRequest.withoutBody(environment: environment)
            body = .object([])
        }
        do {
            try precheck(request)
        } catch {
            return Outcome(response: CGIResponse(error: error), detail: error.detail)
        }
        let config: Config
        do {
            config = try Config.load(environment: environment, scope: configScope)
        } catch {
            let failure = FrontdoorError.internal(error.description)
            return Outcome(response: CGIResponse(error: failure), detail: error.description, configBroken: true)
        }
        // A restore is putting the store back: nothing of this request may touch it.
        if Door.isClosed(config.databasePath) {
            return Outcome(response: CGIResponse(error: Door.closedError), detail: Door.closedError.detail)
        }
        Lifetime.start(seconds: config.processLifetimeSeconds)
        let context = RequestContext(
            config: config, request: request, body: body, now: Clock.now(), durability: durability)
        do {
            return Outcome(response: try handler(context), context: context)
        } catch {
            return Outcome(response: CGIResponse(error: error), detail: error.detail, context: context)
        }
    }

    /// Method, content type and JSON shape, in that order, each with its own code.
    public static func parseBody(_ request: CGIRequest, optional: Bool) throws(FrontdoorError) -> JSONValue {
        guard request.method == "POST" else {
            throw FrontdoorError(.methodNotAllowed, "Only POST is accepted here.")
        }
        if optional && request.contentLength == 0 { return .object([]) }
        guard request.hasJSONContentType else {
            throw FrontdoorError(.unsupportedMediaType, "The body must be JSON (Content-Type: application/json).")
        }
        let body: JSONValue
        do {
            body = try JSONParser.parse(request.body)
        } catch {
            throw .invalidRequest("The body is not valid JSON.", detail: "json: \(error)")
        }
        guard body.objectValue != nil else { throw .invalidRequest("The body must be a JSON object.") }
        return body
    }

    /// Milliseconds with a fixed number of decimals, without Foundation's formatting.
    public static func formatMillis(_ ms: Double, digits: Int = 1) -> String {
        var scale = 1
        for _ in 0..<digits { scale *= 10 }
        let scaled = Int((ms * Double(scale)).rounded())
        let fraction = String(scaled % scale)
        return "\(scaled / scale)" + (digits > 0 ? "." + String(repeating: "0", count: digits - fraction.count) + fraction : "")
    }
}
