// Unit tests of the web kit's module (kits/web/frontdoor.js), on Node's own test runner:
//   node --test tests/kit-unit/
// No browser: what the module reads of one is put on globalThis here, and only for the tests
// that need it (sessionStorage/localStorage as in-memory Storage, navigator.credentials and
// PublicKeyCredential as stand-ins). Node 20 itself has crypto (getRandomValues, subtle), atob,
// btoa, TextEncoder, fetch and Response.
import { test, describe, beforeEach, afterEach } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createHash, webcrypto } from "node:crypto";

import {
  FrontdoorError, createClient, makeNonce, sha256Hex, loadTypoTable, typoSuggestion, addressTooLong,
  oneEditAway, base64urlToBytes, bytesToBase64url, creationOptionsFromJSON, requestOptionsFromJSON,
  credentialToJSON, saveSession, currentSession, clearSession,
} from "../../kits/web/frontdoor.js";

// Debian's own Node 18 keeps Web Crypto off the global object (Node 20 has it there).
if (!globalThis.crypto) globalThis.crypto = webcrypto;

const readJSON = (relative) => JSON.parse(readFileSync(new URL(relative, import.meta.url), "utf8"));
const TABLE = readJSON("../../kits/web/typos.json");
const VECTORS = readJSON("../../Tests/Vectors/typos/vectors.json");

/** Sets a global for one test and puts back what was there (or nothing) afterwards. */
function withGlobal(t, name, value) {
  const before = Object.getOwnPropertyDescriptor(globalThis, name);
  Object.defineProperty(globalThis, name, { value, configurable: true, writable: true, enumerable: true });
  t.after(() => {
    if (before) Object.defineProperty(globalThis, name, before);
    else delete globalThis[name];
  });
}

const bytes = (...values) => Uint8Array.from(values);
const buffer = (...values) => Uint8Array.from(values).buffer;
const utf8 = (text) => new TextEncoder().encode(text);

// ---- The typo check.

describe("typoSuggestion", () => {
  test("typos.json has the shape the rule reads", () => {
    assert.equal(typeof TABLE.topLevelSlips, "object");
    assert.ok(Array.isArray(TABLE.providers) && TABLE.providers.length > 0);
    assert.ok(Array.isArray(TABLE.realNeighbours));
    assert.ok(Number.isInteger(TABLE.editedProviderMinLength));
    for (const [typo, fix] of Object.entries(TABLE.topLevelSlips)) {
      assert.match(typo, /^[a-z]+$/u);
      assert.match(fix, /^[a-z]+$/u);
    }
  });

  test("the vectors file is what this test reads: {about, cases: [{typed, suggestion, why}]}", () => {
    assert.ok(Array.isArray(VECTORS.cases) && VECTORS.cases.length >= 40, "expected the shared vectors");
    for (const c of VECTORS.cases) {
      assert.deepEqual(Object.keys(c).sort(), ["suggestion", "typed", "why"]);
      assert.equal(typeof c.typed, "string");
      assert.ok(c.suggestion === null || typeof c.suggestion === "string");
    }
    assert.ok(VECTORS.cases.some((c) => c.suggestion === null), "some vectors expect no suggestion");
    assert.ok(VECTORS.cases.some((c) => c.suggestion !== null), "some vectors expect one");
  });

  // One test per vector, named by it: a failure says which.
  for (const [index, c] of VECTORS.cases.entries()) {
    test(`vector ${index}: ${JSON.stringify(c.typed)} -> ${JSON.stringify(c.suggestion)} (${c.why})`, () => {
      assert.equal(typoSuggestion(c.typed, TABLE), c.suggestion);
    });
  }

  test("a slip is put right and the local part kept exactly as typed", () => {
    assert.equal(typoSuggestion("Ada.Lovelace+x@GMIAL.COM", TABLE), "Ada.Lovelace+x@gmail.com");
    assert.equal(typoSuggestion("ada@example.con", TABLE), "ada@example.com");
    assert.equal(typoSuggestion("ada@example.nte", TABLE), "ada@example.net");
  });

  test("surrounding white space is trimmed; the argument is made a string", () => {
    assert.equal(typoSuggestion("  ada@gmial.com\n", TABLE), "ada@gmail.com");
    assert.equal(typoSuggestion({ toString: () => "ada@gmial.com" }, TABLE), "ada@gmail.com");
  });

  test("nothing changed, nothing suggested (a provider, a real neighbour, a case change only)", () => {
    assert.equal(typoSuggestion("ada@gmail.com", TABLE), null);
    assert.equal(typoSuggestion("ada@GMAIL.com", TABLE), null);
    assert.equal(typoSuggestion("ada@ymail.com", TABLE), null);
    assert.equal(typoSuggestion("ada@example.org", TABLE), null);
  });

  test("what does not look like an address gets nothing", () => {
    for (const typed of [
      "", "ada", "@gmial.com", "ada@", "ada@@gmial.com", "a@b@gmial.com", "ada@gm ial.com", "ad a@gmial.com",
      "ada@gmialcom", "ada@gmial..com", "ada@.gmial.com", "ada@gmial.com.", "ada@-gmial.com", "ada@gmial-.com",
      "ada@gmial.c", "ada@gmial.c0m", "ada@gmial.123",
    ]) {
      assert.equal(typoSuggestion(typed, TABLE), null, JSON.stringify(typed));
    }
  });

  test("an IDNA top-level label (xn--) passes the format check", () => {
    const table = { ...TABLE, topLevelSlips: {}, providers: ["example.xn--p1ai"], realNeighbours: [], editedProviderMinLength: 8 };
    assert.equal(typoSuggestion("ada@exampel.xn--p1ai", table), "ada@example.xn--p1ai");
  });

  test("the typed text is NFC-normalised first", () => {
    const table = { topLevelSlips: {}, providers: ["caf\u00e9mail.fr"], realNeighbours: [], editedProviderMinLength: 8 };
    // "cafe" + U+0301 (combining acute) is one code point after NFC: one edit from the provider.
    assert.equal(typoSuggestion("ada@cafe\u0301mial.fr", table), "ada@caf\u00e9mail.fr");
  });

  test("the rule's steps on a table of its own", () => {
    const table = {
      topLevelSlips: { con: "com" }, providers: ["longmail.com", "tiny.com"],
      realNeighbours: ["longmall.com"], editedProviderMinLength: 9,
    };
    assert.equal(typoSuggestion("a@lonmail.com", table), "a@longmail.com", "one edit from a long provider");
    assert.equal(typoSuggestion("a@lonmail.con", table), "a@longmail.com", "the slip first, then the edit");
    assert.equal(typoSuggestion("a@longmall.com", table), null, "a real neighbour is left alone");
    assert.equal(typoSuggestion("a@tny.com", table), null, "a provider shorter than the minimum is never edited to");
    assert.equal(typoSuggestion("a@tny.con", table), "a@tny.com", "but a slip is still put right");
    assert.equal(typoSuggestion("a@lnogmail.com", table), "a@longmail.com", "two neighbours swapped is one edit");
    assert.equal(typoSuggestion("a@lnogmall.com", table), null, "two edits are too many");
  });

  test("nothing the server would refuse is offered (local part over 64 bytes, address over 254)", () => {
    const local64 = "a".repeat(64);
    assert.equal(typoSuggestion(`${local64}@gmial.com`, TABLE), `${local64}@gmail.com`);
    assert.equal(typoSuggestion(`a${local64}@gmial.com`, TABLE), null);
    assert.equal(typoSuggestion(`${"\u00e9".repeat(33)}@gmial.com`, TABLE), null, "66 bytes of UTF-8");
    // A slip that lengthens the domain (none in typos.json does) must not push it past 254 bytes.
    const table = { topLevelSlips: { cm: "com" }, providers: [], realNeighbours: [], editedProviderMinLength: 8 };
    const domainOf = (length) => `${"d".repeat(length - 3)}.cm`;
    const at253 = `ab@${"x".repeat(60)}.${domainOf(253 - 3 - 61)}`;
    assert.equal(Buffer.byteLength(at253), 253);
    assert.equal(typoSuggestion(at253, table), at253.replace(/\.cm$/u, ".com"));
    const at254 = `abc@${"x".repeat(60)}.${domainOf(254 - 4 - 61)}`;
    assert.equal(Buffer.byteLength(at254), 254);
    assert.equal(typoSuggestion(at254, table), null);
  });
});

describe("addressTooLong", () => {
  test("true past 254 bytes of UTF-8", () => {
    assert.equal(addressTooLong("a".repeat(254)), false);
    assert.equal(addressTooLong("a".repeat(255)), true);
    assert.equal(addressTooLong("\u00e9".repeat(127)), false, "254 bytes");
    assert.equal(addressTooLong(`${"\u00e9".repeat(127)}a`), true, "255 bytes, 128 code points");
  });
});

describe("oneEditAway", () => {
  const cases = [
    ["gmail.com", "gmail.com", false, "the same"],
    ["", "", false, "both empty"],
    ["", "a", true, "one added to nothing"],
    ["gmial.com", "gmail.com", true, "two neighbours swapped"],
    ["gmai.com", "gmail.com", true, "one dropped"],
    ["gmaill.com", "gmail.com", true, "one added"],
    ["gnail.com", "gmail.com", true, "one changed"],
    ["xmail.com", "gmail.com", true, "the first changed"],
    ["gmail.co", "gmail.com", true, "the last dropped"],
    ["ab", "ba", true, "a whole swap"],
    ["gmal.co", "gmail.com", false, "two dropped"],
    ["gamil.con", "gmail.com", false, "a swap and a change"],
    ["abcd", "badc", false, "two swaps"],
    ["abc", "cba", false, "ends swapped over a middle"],
    ["gm.com", "gmail.com", false, "lengths three apart"],
    ["gma\u0131l.com", "gmail.com", true, "a dotless i is one code point"],
    ["gm\u{1F600}il.com", "gmail.com", true, "an astral character is one code point, two UTF-16 units"],
    ["\u{1F600}", "\u{1F601}", true, "astral for astral"],
  ];
  for (const [a, b, expected, why] of cases) {
    test(`${JSON.stringify(a)} ~ ${JSON.stringify(b)}: ${expected} (${why})`, () => {
      assert.equal(oneEditAway(a, b), expected);
      assert.equal(oneEditAway(b, a), expected, "symmetric");
    });
  }
});

// ---- Bytes and base64url.

describe("base64url", () => {
  const rfc4648 = [["", ""], ["f", "Zg"], ["fo", "Zm8"], ["foo", "Zm9v"], ["foob", "Zm9vYg"], ["fooba", "Zm9vYmE"], ["foobar", "Zm9vYmFy"]];

  test("RFC 4648's vectors, without padding, both ways", () => {
    for (const [text, encoded] of rfc4648) {
      assert.equal(bytesToBase64url(utf8(text)), encoded);
      assert.deepEqual(base64urlToBytes(encoded), utf8(text));
    }
  });

  test("the URL alphabet: - and _ for + and /", () => {
    assert.equal(bytesToBase64url(bytes(0xfb, 0xff)), "-_8");
    assert.equal(bytesToBase64url(bytes(0xff, 0xff, 0xfe)), "___-");
    assert.deepEqual(base64urlToBytes("-_8"), bytes(0xfb, 0xff));
  });

  test("round trips of every length from 0 to 96 bytes, against Node's own base64url", () => {
    for (let length = 0; length <= 96; length += 1) {
      const data = crypto.getRandomValues(new Uint8Array(length));
      const text = bytesToBase64url(data);
      assert.equal(text, Buffer.from(data).toString("base64url"));
      assert.doesNotMatch(text, /[+/=]/u);
      const back = base64urlToBytes(text);
      assert.ok(back instanceof Uint8Array);
      assert.deepEqual(back, data);
    }
  });

  test("an ArrayBuffer is taken as well as a Uint8Array, and a view encodes only its own bytes", () => {
    assert.equal(bytesToBase64url(buffer(1, 2, 3)), "AQID");
    const whole = bytes(9, 1, 2, 3, 9);
    assert.equal(bytesToBase64url(whole.subarray(1, 4)), "AQID");
  });

  test("padding and the standard alphabet are accepted too (atob's leniency)", () => {
    assert.deepEqual(base64urlToBytes("AQ=="), bytes(1));
    assert.deepEqual(base64urlToBytes("AQ="), bytes(1));
    assert.deepEqual(base64urlToBytes("+/8"), bytes(0xfb, 0xff));
  });

  test("what is not base64url is refused: a DOMException (InvalidCharacterError), as atob throws", () => {
    for (const text of ["A", "AQIDB", "A*", "AQ.D", "=AQ", "AQ===", "A Q\u00e9", "AQ\u00ff"]) {
      assert.throws(() => base64urlToBytes(text), (error) => error.name === "InvalidCharacterError", JSON.stringify(text));
    }
  });

  test("a non-string is a TypeError", () => {
    for (const value of [null, undefined, 42, bytes(1)]) {
      assert.throws(() => base64urlToBytes(value), TypeError);
    }
  });
});

// ---- WebAuthn's JSON.

describe("creationOptionsFromJSON and requestOptionsFromJSON", () => {
  const creationJSON = () => ({
    rp: { id: "example.com", name: "Example" },
    user: { id: "AQID", name: "ada@example.com", displayName: "Ada" },
    challenge: "BAUGBw",
    pubKeyCredParams: [{ type: "public-key", alg: -7 }],
    timeout: 60000,
    excludeCredentials: [{ type: "public-key", id: "CAk", transports: ["internal"] }],
    authenticatorSelection: { residentKey: "required", userVerification: "preferred" },
  });
  const requestJSON = () => ({
    challenge: "BAUGBw", rpId: "example.com", userVerification: "preferred", timeout: 60000,
    allowCredentials: [{ type: "public-key", id: "CAk" }, { type: "public-key", id: "_-8" }],
  });

  test("without the browser's parse functions: binary members become Uint8Arrays, the rest kept", (t) => {
    withGlobal(t, "PublicKeyCredential", class {}); // A browser with WebAuthn but no JSON parsing.
    const json = creationJSON();
    const options = creationOptionsFromJSON(json);
    assert.deepEqual(options.challenge, bytes(4, 5, 6, 7));
    assert.ok(options.challenge instanceof Uint8Array);
    assert.deepEqual(options.user, { id: bytes(1, 2, 3), name: "ada@example.com", displayName: "Ada" });
    assert.deepEqual(options.excludeCredentials, [{ type: "public-key", id: bytes(8, 9), transports: ["internal"] }]);
    assert.deepEqual(options.rp, json.rp);
    assert.deepEqual(options.pubKeyCredParams, json.pubKeyCredParams);
    assert.equal(options.timeout, 60000);
    assert.deepEqual(options.authenticatorSelection, json.authenticatorSelection);
    assert.deepEqual(json, creationJSON(), "the JSON itself is not changed");

    const request = requestOptionsFromJSON(requestJSON());
    assert.deepEqual(request, {
      challenge: bytes(4, 5, 6, 7), rpId: "example.com", userVerification: "preferred", timeout: 60000,
      allowCredentials: [{ type: "public-key", id: bytes(8, 9) }, { type: "public-key", id: bytes(0xff, 0xef) }],
    });
  });

  test("missing credential lists become empty lists", (t) => {
    withGlobal(t, "PublicKeyCredential", class {});
    const { excludeCredentials, ...json } = creationJSON();
    assert.deepEqual(creationOptionsFromJSON(json).excludeCredentials, []);
    const { allowCredentials, ...request } = requestJSON();
    assert.deepEqual(requestOptionsFromJSON(request).allowCredentials, []);
  });

  test("with PublicKeyCredential's own parse functions: theirs is the answer", (t) => {
    const seen = [];
    withGlobal(t, "PublicKeyCredential", {
      parseCreationOptionsFromJSON: (json) => (seen.push(["creation", json]), { parsed: "creation" }),
      parseRequestOptionsFromJSON: (json) => (seen.push(["request", json]), { parsed: "request" }),
    });
    const creation = creationJSON();
    const request = requestJSON();
    assert.deepEqual(creationOptionsFromJSON(creation), { parsed: "creation" });
    assert.deepEqual(requestOptionsFromJSON(request), { parsed: "request" });
    assert.equal(seen[0][1], creation);
    assert.equal(seen[1][1], request);
  });

  test("a malformed binary member is refused", (t) => {
    withGlobal(t, "PublicKeyCredential", class {});
    assert.throws(() => requestOptionsFromJSON({ ...requestJSON(), challenge: "A" }), { name: "InvalidCharacterError" });
  });
});

describe("credentialToJSON", () => {
  test("the browser's own toJSON when the credential has one", () => {
    const json = { id: "x", rawId: "x", type: "public-key", response: {}, clientExtensionResults: {} };
    assert.equal(credentialToJSON({ toJSON: () => json, response: null }), json);
  });

  test("a registration (attestation) without toJSON: base64url members, the transports", () => {
    const clientData = utf8('{"type":"webauthn.create"}');
    const credential = {
      id: "AQID", rawId: buffer(1, 2, 3), type: "public-key", authenticatorAttachment: "platform",
      response: {
        clientDataJSON: clientData.buffer, attestationObject: buffer(0xa3, 0x63, 0x66),
        getTransports: () => ["internal", "hybrid"],
      },
    };
    assert.deepEqual(credentialToJSON(credential), {
      id: "AQID", rawId: "AQID", type: "public-key",
      response: {
        clientDataJSON: Buffer.from(clientData).toString("base64url"), attestationObject: "o2Nm",
        transports: ["internal", "hybrid"],
      },
    });
    delete credential.response.getTransports;
    assert.equal("transports" in credentialToJSON(credential).response, false);
  });

  test("a sign-in (assertion) without toJSON: authenticatorData, signature, userHandle when there is one", () => {
    const credential = {
      id: "CAk", rawId: buffer(8, 9), type: "public-key",
      response: {
        clientDataJSON: buffer(0x7b, 0x7d), authenticatorData: buffer(0xfb, 0xff), signature: buffer(0x30, 0x45),
        userHandle: buffer(1, 2, 3),
      },
    };
    assert.deepEqual(credentialToJSON(credential), {
      id: "CAk", rawId: "CAk", type: "public-key",
      response: { clientDataJSON: "e30", authenticatorData: "-_8", signature: "MEU", userHandle: "AQID" },
    });
    credential.response.userHandle = null;
    assert.deepEqual(credentialToJSON(credential).response, { clientDataJSON: "e30", authenticatorData: "-_8", signature: "MEU" });
  });
});

// ---- The nonce and SHA-256.

describe("sha256Hex and makeNonce", () => {
  const oracle = (text) => createHash("sha256").update(text, "utf8").digest("hex");

  test("FIPS 180-2's vectors", async () => {
    assert.equal(await sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    assert.equal(await sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    assert.equal(await sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    assert.equal(await sha256Hex("a".repeat(1000000)), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  });

  test("the text is hashed as UTF-8, and the hex is lowercase", async () => {
    for (const text of ["\u00e9", "caf\u00e9 \u{1F600}", "\u0000"]) {
      const hex = await sha256Hex(text);
      assert.equal(hex, oracle(text));
      assert.match(hex, /^[0-9a-f]{64}$/u);
    }
  });

  test("makeNonce: raw is 32 random bytes as 64 hex digits, hashed its SHA-256", async () => {
    const nonce = await makeNonce();
    assert.deepEqual(Object.keys(nonce).sort(), ["hashed", "raw"]);
    assert.match(nonce.raw, /^[0-9a-f]{64}$/u);
    assert.equal(nonce.hashed, oracle(nonce.raw));
    const others = await Promise.all(Array.from({ length: 8 }, () => makeNonce()));
    assert.equal(new Set([nonce.raw, ...others.map((n) => n.raw)]).size, 9, "each nonce new");
  });

  test("makeNonce takes its bytes from crypto.getRandomValues", async (t) => {
    t.mock.method(globalThis.crypto, "getRandomValues", (array) => array.fill(0xab));
    const nonce = await makeNonce();
    assert.equal(nonce.raw, "ab".repeat(32));
    assert.equal(nonce.hashed, oracle("ab".repeat(32)));
  });
});

// ---- FrontdoorError.

describe("FrontdoorError", () => {
  test("the code alone: its message, no status, no retry", () => {
    const error = new FrontdoorError("network");
    assert.ok(error instanceof Error);
    assert.ok(error instanceof FrontdoorError);
    assert.equal(error.name, "FrontdoorError");
    assert.equal(error.code, "network");
    assert.equal(error.message, "network");
    assert.equal(error.status, 0);
    assert.equal(error.retryAfter, null);
    assert.equal(error.serverMessage, null);
    assert.equal(typeof error.stack, "string");
  });

  test("the answer's members travel along; nothing else of the body does", () => {
    const body = {
      error: "proof_required", message: "Prove it.", suggestion: "ada@gmail.com", ticket: "T", email: "ada@example.com",
      methods: ["password"], startOver: true, reason: "too_short", minLength: 12, secret: "not copied", status: 999,
    };
    const error = new FrontdoorError("proof_required", "Said.", { status: 409, body, retryAfter: 5 });
    assert.equal(error.message, "Said.");
    assert.equal(error.status, 409);
    assert.equal(error.retryAfter, 5);
    assert.equal(error.serverMessage, "Prove it.");
    for (const name of ["suggestion", "ticket", "email", "methods", "startOver", "reason", "minLength"]) {
      assert.deepEqual(error[name], body[name], name);
    }
    assert.equal("secret" in error, false);
    assert.equal("error" in error, false);
  });

  test("a member set to null is kept, one left out is absent; a non-string message is no serverMessage", () => {
    const error = new FrontdoorError("invalid_email", "", { body: { message: 42, suggestion: null } });
    assert.equal(error.message, "invalid_email", "an empty message falls back to the code");
    assert.equal(error.suggestion, null);
    assert.equal("ticket" in error, false);
    assert.equal(error.serverMessage, null);
  });
});

// ---- createClient.

function jsonAnswer(status, body, headers = {}) {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", ...headers } });
}

/** A fetch that records each call and answers with `answer(url, init)` (default: 200 {ok: true}). */
function recorder(answer = () => jsonAnswer(200, { ok: true })) {
  const calls = [];
  const fetch = async (url, init) => {
    calls.push({ url, init, body: JSON.parse(init.body) });
    return answer(url, init);
  };
  return { fetch, calls };
}

describe("createClient", () => {
  test("a POST of JSON to base/endpoint, no credentials, no cache; Authorization only with a token", async () => {
    const { fetch, calls } = recorder(() => jsonAnswer(200, { sessionToken: "S" }));
    const client = createClient({ base: "https://id.example/auth", fetch });
    assert.deepEqual(await client.session("tok"), { sessionToken: "S" });
    assert.deepEqual(await client.passkeySignInBegin(), { sessionToken: "S" });
    assert.equal(calls.length, 2);
    assert.equal(calls[0].url, "https://id.example/auth/session");
    assert.deepEqual(calls[0].init, {
      method: "POST", headers: { "Content-Type": "application/json", Authorization: "Bearer tok" }, body: "{}",
      credentials: "omit", cache: "no-store",
    });
    assert.equal(calls[1].url, "https://id.example/auth/signin-passkey");
    assert.deepEqual(calls[1].init.headers, { "Content-Type": "application/json" });
    assert.equal(calls[1].init.body, '{"action":"begin"}');
  });

  test("the default base is /auth", async () => {
    const { fetch, calls } = recorder();
    await createClient({ fetch }).getAccount("t");
    assert.equal(calls[0].url, "/auth/account");
  });

  test("without a fetch given, the global fetch at the time of createClient", async (t) => {
    const { fetch, calls } = recorder();
    withGlobal(t, "fetch", fetch);
    await createClient().listPasskeys("t");
    assert.equal(calls[0].url, "/auth/passkey");
  });

  // Each endpoint function: [name, arguments, endpoint, body sent, bearer token or null].
  const cred = { id: "c", rawId: "c", type: "public-key", response: {} };
  const endpoints = [
    ["signInWithGoogle", [{ idToken: "G", rawNonce: "N", deviceName: "Phone", token: "t" }], "signin-google",
      { idToken: "G", rawNonce: "N", deviceName: "Phone" }, "t"],
    ["signInWithGoogle", [{ idToken: "G" }], "signin-google", { idToken: "G" }, null],
    ["signInWithGoogle", [{ idToken: "G", language: "fr" }], "signin-google", { idToken: "G", language: "fr" }, null],
    ["signInWithApple", [{ identityToken: "I", rawNonce: "N", language: "ar" }], "signin-apple",
      { identityToken: "I", rawNonce: "N", language: "ar" }, null],
    ["register", [{ email: "e", password: "p", language: "de" }], "signin-email",
      { action: "register", email: "e", password: "p", language: "de" }, null],
    ["signInWithApple", [{ identityToken: "I", rawNonce: "N", givenName: "Ada", familyName: "L" }], "signin-apple",
      { identityToken: "I", rawNonce: "N", givenName: "Ada", familyName: "L" }, null],
    ["register", [{ email: "e", password: "p", name: "Ada", acceptAsTyped: true, deviceName: "D", token: "ignored" }],
      "signin-email", { action: "register", email: "e", password: "p", name: "Ada", acceptAsTyped: true, deviceName: "D" }, null],
    ["logIn", [{ email: "e", password: "p", token: "t" }], "signin-email", { action: "login", email: "e", password: "p" }, "t"],
    ["sendCode", ["T"], "verify-email", { action: "send_code", ticket: "T" }, null],
    ["confirmWithCode", ["T", "123456", { deviceName: "D", token: "t" }], "verify-email",
      { action: "confirm", ticket: "T", code: "123456", deviceName: "D" }, "t"],
    ["confirmWithCode", ["T", "123456"], "verify-email", { action: "confirm", ticket: "T", code: "123456" }, null],
    ["confirmWithPassword", ["T", "pw"], "verify-email", { action: "confirm", ticket: "T", password: "pw" }, null],
    ["verifyOwnEmail", ["t"], "verify-email", { action: "verify_own_email" }, "t"],
    ["resetRequest", ["e"], "verify-email", { action: "reset_request", email: "e" }, null],
    ["resetConfirm", ["T", "c", "p", { deviceName: "D" }], "verify-email",
      { action: "reset_confirm", ticket: "T", code: "c", password: "p", deviceName: "D" }, null],
    ["notMe", ["NM"], "verify-email", { action: "not_me", token: "NM" }, null],
    ["session", ["t"], "session", {}, "t"],
    ["signOut", ["t"], "sign-out", {}, "t"],
    ["signOut", ["t", { scope: "all" }], "sign-out", { scope: "all" }, "t"],
    ["signOut", ["t", { scope: "all", sessionId: "s1" }], "sign-out", { sessionId: "s1" }, "t"],
    ["deleteAccount", ["t"], "delete-account", {}, "t"],
    ["deleteAccount", ["t", { appleAuthorizationCode: "A", appleIdentityToken: "I", appleRawNonce: "N" }], "delete-account",
      { appleAuthorizationCode: "A", appleIdentityToken: "I", appleRawNonce: "N" }, "t"],
    ["getAccount", ["t"], "account", { action: "get" }, "t"],
    ["updateName", ["t", "Ada"], "account", { action: "update", name: "Ada" }, "t"],
    ["updateLanguage", ["t", "fr"], "account", { action: "update", language: "fr" }, "t"],
    ["changePassword", ["t", "old", "new"], "account", { action: "change_password", currentPassword: "old", newPassword: "new" }, "t"],
    ["setPassword", ["t", "new"], "account", { action: "set_password", newPassword: "new" }, "t"],
    ["changeEmail", ["t", "e", { acceptAsTyped: true }], "account", { action: "change_email", newEmail: "e", acceptAsTyped: true }, "t"],
    ["linkGoogle", ["t", { idToken: "G", rawNonce: "N" }], "account", { action: "link", provider: "google", idToken: "G", rawNonce: "N" }, "t"],
    ["linkApple", ["t", { identityToken: "I", rawNonce: "N" }], "account",
      { action: "link", provider: "apple", identityToken: "I", rawNonce: "N" }, "t"],
    ["unlink", ["t", "apple", { appleAuthorizationCode: "A" }], "account",
      { action: "unlink", provider: "apple", appleAuthorizationCode: "A" }, "t"],
    ["passkeySignInBegin", [], "signin-passkey", { action: "begin" }, null],
    ["passkeySignInFinish", ["C", cred, { deviceName: "D" }], "signin-passkey",
      { action: "finish", ceremonyId: "C", credential: cred, deviceName: "D" }, null],
    ["passkeyRegisterBegin", ["t"], "passkey", { action: "register_begin" }, "t"],
    ["passkeyRegisterFinish", ["t", "C", cred, { name: "Mac" }], "passkey",
      { action: "register_finish", ceremonyId: "C", credential: cred, name: "Mac" }, "t"],
    ["listPasskeys", ["t"], "passkey", { action: "list" }, "t"],
    ["deletePasskey", ["t", "P"], "passkey", { action: "delete", passkeyId: "P" }, "t"],
  ];
  for (const [name, args, endpoint, body, token] of endpoints) {
    test(`${name}(${args.map((a) => JSON.stringify(a)).join(", ")}) -> ${endpoint}`, async () => {
      const { fetch, calls } = recorder();
      await createClient({ fetch })[name](...args);
      assert.equal(calls.length, 1);
      assert.equal(calls[0].url, `/auth/${endpoint}`);
      assert.equal(calls[0].init.method, "POST");
      assert.deepEqual(calls[0].body, body);
      assert.deepEqual(calls[0].init.headers,
        token ? { "Content-Type": "application/json", Authorization: `Bearer ${token}` } : { "Content-Type": "application/json" });
    });
  }

  test("every function of the client is covered here (a new one wants its test)", () => {
    const client = createClient({ fetch: async () => jsonAnswer(200, {}) });
    const covered = new Set([...endpoints.map(([name]) => name), "signInWithPasskey", "addPasskey"]);
    assert.deepEqual(Object.keys(client).filter((name) => !covered.has(name)), []);
    for (const name of Object.keys(client)) assert.equal(typeof client[name], "function", name);
  });

  describe("refusals", () => {
    const refused = (answer) => createClient({ fetch: async () => answer }).logIn({ email: "e", password: "p" });

    test("a 4xx JSON answer: FrontdoorError with the code, status, message and the answer's members", async () => {
      const error = await refused(jsonAnswer(400, {
        error: "invalid_email", message: "That is not an address.", suggestion: "ada@gmail.com",
      })).then(() => assert.fail("resolved"), (e) => e);
      assert.ok(error instanceof FrontdoorError);
      assert.equal(error.code, "invalid_email");
      assert.equal(error.status, 400);
      assert.equal(error.message, "That is not an address.");
      assert.equal(error.serverMessage, "That is not an address.");
      assert.equal(error.suggestion, "ada@gmail.com");
      assert.equal(error.retryAfter, null);
    });

    test("proof_required carries ticket, email and methods", async () => {
      await assert.rejects(refused(jsonAnswer(409, {
        error: "proof_required", message: "m", ticket: "T", email: "ada@example.com", methods: ["password", "email_code"],
      })), { name: "FrontdoorError", code: "proof_required", status: 409, ticket: "T", email: "ada@example.com", methods: ["password", "email_code"] });
    });

    test("Retry-After in seconds becomes retryAfter", async () => {
      await assert.rejects(refused(jsonAnswer(429, { error: "rate_limited", message: "m" }, { "Retry-After": "30" })),
        { code: "rate_limited", status: 429, retryAfter: 30 });
    });

    test("a Retry-After that is not a number of seconds (an HTTP date, words) is null", async () => {
      for (const value of ["Wed, 21 Oct 2026 07:28:00 GMT", "soon", ""]) {
        await assert.rejects(refused(jsonAnswer(429, { error: "rate_limited" }, { "Retry-After": value })),
          { code: "rate_limited", retryAfter: null }, value);
      }
    });

    test("a non-JSON answer is unexpected_answer, with the status (and a Retry-After)", async () => {
      await assert.rejects(refused(new Response("<html>Bad gateway</html>", { status: 502, headers: { "Content-Type": "text/html" } })),
        { name: "FrontdoorError", code: "unexpected_answer", status: 502, message: "HTTP 502", retryAfter: null });
      await assert.rejects(refused(new Response("busy", { status: 503, headers: { "Retry-After": "120" } })),
        { code: "unexpected_answer", status: 503, retryAfter: 120 });
    });

    test("a 200 that is not a JSON object is unexpected_answer too", async () => {
      await assert.rejects(refused(new Response("OK", { status: 200 })), { code: "unexpected_answer", status: 200, message: "HTTP 200" });
      await assert.rejects(refused(jsonAnswer(200, "a string")), { code: "unexpected_answer", status: 200 });
      await assert.rejects(refused(jsonAnswer(200, null)), { code: "unexpected_answer", status: 200 });
    });

    test("a JSON refusal without a string `error` is unexpected_answer", async () => {
      await assert.rejects(refused(jsonAnswer(400, { message: "no code" })), { code: "unexpected_answer", status: 400 });
      await assert.rejects(refused(jsonAnswer(400, { error: 7 })), { code: "unexpected_answer", status: 400 });
    });

    test("a fetch that rejects is network, status 0", async () => {
      const client = createClient({ fetch: async () => { throw new TypeError("Failed to fetch"); } });
      await assert.rejects(client.session("t"), (error) => {
        assert.ok(error instanceof FrontdoorError);
        assert.equal(error.code, "network");
        assert.equal(error.status, 0);
        assert.equal(error.retryAfter, null);
        return true;
      });
    });
  });

  describe("the passkey ceremonies (navigator.credentials stood in)", () => {
    test("signInWithPasskey: begin, the browser's get with the options, finish with its JSON", async (t) => {
      withGlobal(t, "PublicKeyCredential", class {});
      const asked = [];
      const assertion = { id: "CAk", rawId: "CAk", type: "public-key", response: { clientDataJSON: "e30" } };
      withGlobal(t, "navigator", {
        credentials: { get: async (options) => (asked.push(options), { toJSON: () => assertion }) },
      });
      const { fetch, calls } = recorder((url, init) => (JSON.parse(init.body).action === "begin"
        ? jsonAnswer(200, { ceremonyId: "C1", publicKey: { challenge: "AQID", rpId: "example.com", allowCredentials: [] } })
        : jsonAnswer(200, { sessionToken: "S" })));
      const signal = new AbortController().signal;
      const body = await createClient({ fetch }).signInWithPasskey({ mediation: "conditional", signal, deviceName: "Mac" });
      assert.deepEqual(body, { sessionToken: "S" });
      assert.equal(asked.length, 1);
      assert.equal(asked[0].mediation, "conditional");
      assert.equal(asked[0].signal, signal);
      assert.deepEqual(asked[0].publicKey, { challenge: bytes(1, 2, 3), rpId: "example.com", allowCredentials: [] });
      assert.deepEqual(calls.map((c) => c.body), [
        { action: "begin" }, { action: "finish", ceremonyId: "C1", credential: assertion, deviceName: "Mac" },
      ]);
    });

    test("signInWithPasskey: the browser's refusal is thrown as it is, and nothing is finished", async (t) => {
      withGlobal(t, "PublicKeyCredential", class {});
      const refusal = new DOMException("The person closed the sheet.", "NotAllowedError");
      withGlobal(t, "navigator", { credentials: { get: async () => { throw refusal; } } });
      const { fetch, calls } = recorder(() => jsonAnswer(200, { ceremonyId: "C1", publicKey: { challenge: "AQID" } }));
      await assert.rejects(createClient({ fetch }).signInWithPasskey(), (error) => error === refusal);
      assert.equal(calls.length, 1);
    });

    test("addPasskey: register_begin, the browser's create, register_finish, with the token throughout", async (t) => {
      withGlobal(t, "PublicKeyCredential", class {});
      const created = [];
      withGlobal(t, "navigator", {
        credentials: {
          create: async (options) => (created.push(options), {
            id: "AQID", rawId: buffer(1, 2, 3), type: "public-key",
            response: { clientDataJSON: buffer(0x7b, 0x7d), attestationObject: buffer(0xa0), getTransports: () => ["internal"] },
          }),
        },
      });
      const { fetch, calls } = recorder((url, init) => (JSON.parse(init.body).action === "register_begin"
        ? jsonAnswer(200, { ceremonyId: "C2", publicKey: { challenge: "BAU", user: { id: "Bg", name: "n" }, excludeCredentials: [{ id: "Bw", type: "public-key" }] } })
        : jsonAnswer(200, { passkeyId: "P", createdAt: "2026-01-01T00:00:00Z" })));
      const answer = await createClient({ fetch }).addPasskey("tok", { name: "Mac" });
      assert.deepEqual(answer, { passkeyId: "P", createdAt: "2026-01-01T00:00:00Z" });
      assert.deepEqual(created[0].publicKey, {
        challenge: bytes(4, 5), user: { id: bytes(6), name: "n" }, excludeCredentials: [{ id: bytes(7), type: "public-key" }],
      });
      assert.deepEqual(calls.map((c) => c.body), [
        { action: "register_begin" },
        {
          action: "register_finish", ceremonyId: "C2", name: "Mac",
          credential: { id: "AQID", rawId: "AQID", type: "public-key", response: { clientDataJSON: "e30", attestationObject: "oA", transports: ["internal"] } },
        },
      ]);
      for (const call of calls) assert.equal(call.init.headers.Authorization, "Bearer tok");
    });
  });
});

// ---- loadTypoTable.

describe("loadTypoTable", () => {
  test("fetches typos.json beside the module by default, revalidated (no-cache)", async (t) => {
    const asked = [];
    withGlobal(t, "fetch", async (url, init) => {
      asked.push({ url: String(url), init });
      return new Response(readFileSync(new URL(url)), { status: 200 });
    });
    const table = await loadTypoTable();
    assert.deepEqual(table, TABLE);
    assert.equal(asked[0].url, new URL("../../kits/web/typos.json", import.meta.url).href);
    assert.deepEqual(asked[0].init, { cache: "no-cache" });
  });

  test("an HTTP failure is unexpected_answer", async (t) => {
    withGlobal(t, "fetch", async () => new Response("gone", { status: 404 }));
    await assert.rejects(loadTypoTable("/auth/kit/typos.json"), { code: "unexpected_answer", message: "typos.json: HTTP 404" });
  });
});

// ---- The kept session.

/** The Web Storage interface, in memory: what saveSession and currentSession use of it. */
class MemoryStorage {
  #items = new Map();
  get length() { return this.#items.size; }
  key(index) { return [...this.#items.keys()][index] ?? null; }
  getItem(key) { return this.#items.has(String(key)) ? this.#items.get(String(key)) : null; }
  setItem(key, value) { this.#items.set(String(key), String(value)); }
  removeItem(key) { this.#items.delete(String(key)); }
  clear() { this.#items.clear(); }
}

describe("saveSession, currentSession, clearSession", () => {
  const KEY = "frontdoor.session";
  const future = new Date(Date.now() + 3600_000).toISOString();
  const past = new Date(Date.now() - 1000).toISOString();
  const answer = (token = "S1", expiresAt = future) => ({
    sessionToken: token, accountId: "A1", sessionId: "X1", sessionExpiresAt: expiresAt, account: { email: "ada@example.com" },
  });
  const saved = (token = "S1", expiresAt = future) => ({ sessionToken: token, accountId: "A1", sessionId: "X1", sessionExpiresAt: expiresAt });

  beforeEach(() => {
    globalThis.sessionStorage = new MemoryStorage();
    globalThis.localStorage = new MemoryStorage();
  });
  afterEach(() => {
    delete globalThis.sessionStorage;
    delete globalThis.localStorage;
  });

  test("kept in sessionStorage by default: only the session's four members", () => {
    const session = saveSession(answer());
    assert.deepEqual(session, saved());
    assert.deepEqual(JSON.parse(sessionStorage.getItem(KEY)), saved());
    assert.equal(localStorage.getItem(KEY), null);
    assert.deepEqual(currentSession(), saved());
  });

  test("a missing sessionId is kept as null", () => {
    const { sessionId, ...body } = answer();
    assert.equal(saveSession(body).sessionId, null);
  });

  test("remember: true keeps it in localStorage, and a later save replaces it wherever it was", () => {
    saveSession(answer("S1"), { remember: true });
    assert.equal(sessionStorage.getItem(KEY), null);
    assert.equal(JSON.parse(localStorage.getItem(KEY)).sessionToken, "S1");
    assert.equal(currentSession().sessionToken, "S1");
    saveSession(answer("S2"));
    assert.equal(localStorage.getItem(KEY), null);
    assert.equal(currentSession().sessionToken, "S2");
  });

  test("nothing kept: null", () => {
    assert.equal(currentSession(), null);
  });

  test("sessionStorage's is read first", () => {
    localStorage.setItem(KEY, JSON.stringify(saved("LOCAL")));
    sessionStorage.setItem(KEY, JSON.stringify(saved("TAB")));
    assert.equal(currentSession().sessionToken, "TAB");
  });

  test("past its expiry: removed, and the other store's still counts", () => {
    sessionStorage.setItem(KEY, JSON.stringify(saved("OLD", past)));
    localStorage.setItem(KEY, JSON.stringify(saved("LOCAL")));
    assert.equal(currentSession().sessionToken, "LOCAL");
    assert.equal(sessionStorage.getItem(KEY), null);
    localStorage.setItem(KEY, JSON.stringify(saved("OLD", past)));
    assert.equal(currentSession(), null);
    assert.equal(localStorage.getItem(KEY), null);
  });

  test("a damaged entry, or one without a token, is no session and is removed", () => {
    for (const text of ["{not json", "null", "42", JSON.stringify({ accountId: "A1", sessionExpiresAt: future })]) {
      sessionStorage.setItem(KEY, text);
      assert.equal(currentSession(), null, text);
      assert.equal(sessionStorage.getItem(KEY), null, text);
    }
  });

  test("an expiry that does not parse is taken as not past (only a known expiry ends it)", () => {
    sessionStorage.setItem(KEY, JSON.stringify({ sessionToken: "S", sessionExpiresAt: "whenever" }));
    assert.equal(currentSession().sessionToken, "S");
  });

  test("clearSession empties both stores, and nothing else of them", () => {
    sessionStorage.setItem(KEY, "x");
    localStorage.setItem(KEY, "y");
    localStorage.setItem("other", "kept");
    clearSession();
    assert.equal(sessionStorage.getItem(KEY), null);
    assert.equal(localStorage.getItem(KEY), null);
    assert.equal(localStorage.getItem("other"), "kept");
  });
});

describe("an app's web view", async () => {
  const { isWebView, parseReturn } = await import("../../kits/web/frontdoor.js");
  test("Android's WebView and iOS's WKWebView are web views; the browsers are not", () => {
    assert.equal(isWebView("Mozilla/5.0 (Linux; Android 14; Pixel 7; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/156.0.0.0 Mobile Safari/537.36"), true);
    assert.equal(isWebView("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148"), true);
    assert.equal(isWebView("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"), false);
    assert.equal(isWebView("Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Mobile Safari/537.36"), false);
    assert.equal(isWebView("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36"), false);
    assert.equal(isWebView("anything", { bridge: true }), true);
  });
  test("a return's fragment is read, anything else is not a return", () => {
    assert.deepEqual(parseReturn("#return=apple&id_token=a.b.c&state=s%2B1&user=%7B%7D&code=c"),
      { provider: "apple", id_token: "a.b.c", code: "c", state: "s+1", user: "{}" });
    assert.deepEqual(parseReturn("#return=google&credential=x.y.z"), { provider: "google", credential: "x.y.z" });
    assert.deepEqual(parseReturn("#return=error"), { provider: "error" });
    for (const hash of ["", "#", "#not-me=abc", "#return=github&x=1", "return=apple", null, undefined]) {
      assert.equal(parseReturn(hash), null, String(hash));
    }
  });
});
