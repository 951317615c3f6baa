// frontdoor.js: the web kit's module (docs/clients.md). No dependency, no build step: import it
// as it is served (`import * as frontdoor from "/auth/kit/frontdoor.js"`). One function per
// endpoint and action of docs/api.md; every refusal is thrown as a FrontdoorError carrying the
// server's stable `code` and its data.

/** A refusal: `code` is the stable code (docs/api.md), or one of the kit's own: `network` (no
 * answer), `unexpected_answer` (an answer that is not frontdoor's JSON). The answer's members
 * travel along: suggestion, ticket, email, methods, startOver, reason, minLength; `retryAfter` is
 * the Retry-After header in seconds; `serverMessage` the server's own sentence. */
export class FrontdoorError extends Error {
  constructor(code, message, { status = 0, body = {}, retryAfter = null } = {}) {
    super(message || code);
    this.name = "FrontdoorError";
    this.code = code;
    this.status = status;
    this.serverMessage = typeof body.message === "string" ? body.message : null;
    this.retryAfter = retryAfter;
    for (const name of ["suggestion", "ticket", "email", "methods", "startOver", "reason", "minLength"]) {
      if (body[name] !== undefined) this[name] = body[name];
    }
  }
}

/** A client for the endpoints under `base` (default "/auth", the same origin). */
export function createClient({ base = "/auth", fetch: fetchFn = globalThis.fetch.bind(globalThis) } = {}) {
  async function call(endpoint, body, token) {
    const headers = { "Content-Type": "application/json" };
    if (token) headers.Authorization = "Bearer " + token;
    let response;
    try {
      response = await fetchFn(`${base}/${endpoint}`, {
        method: "POST", headers, body: JSON.stringify(body ?? {}), credentials: "omit", cache: "no-store",
      });
    } catch (cause) {
      throw new FrontdoorError("network", "The server could not be reached.", { status: 0 });
    }
    let json = null;
    try {
      json = await response.json();
    } catch (cause) {
      json = null;
    }
    if (response.ok && json && typeof json === "object") return json;
    const retry = Number.parseInt(response.headers.get("Retry-After") ?? "", 10);
    const retryAfter = Number.isFinite(retry) ? retry : null;
    if (json && typeof json.error === "string") {
      throw new FrontdoorError(json.error, json.message, { status: response.status, body: json, retryAfter });
    }
    throw new FrontdoorError("unexpected_answer", `HTTP ${response.status}`, { status: response.status, retryAfter });
  }

  const withDevice = (body, deviceName) => (deviceName ? { ...body, deviceName } : body);

  return {
    // Sign-ins: each answers the session body.
    // `language` (a tag such as "fr"): the mails' language of an account the call makes.
    signInWithGoogle: ({ idToken, rawNonce, deviceName, token, language }) =>
      call("signin-google", withDevice(rawNonce ? { idToken, rawNonce, language } : { idToken, language }, deviceName), token),
    signInWithApple: ({ identityToken, rawNonce, givenName, familyName, deviceName, token, language }) =>
      call("signin-apple", withDevice({ identityToken, rawNonce, givenName, familyName, language }, deviceName), token),
    register: ({ email, password, name, acceptAsTyped, deviceName, language }) =>
      call("signin-email", withDevice({ action: "register", email, password, name, acceptAsTyped, language }, deviceName)),
    logIn: ({ email, password, deviceName, token }) =>
      call("signin-email", withDevice({ action: "login", email, password }, deviceName), token),

    // verify-email: joins (proof_required), own-email verification, password reset.
    sendCode: (ticket) => call("verify-email", { action: "send_code", ticket }),
    // With `token` (a live session of the ticket's account) that session is proven again in place:
    // no second session of the same device.
    confirmWithCode: (ticket, code, { deviceName, token } = {}) =>
      call("verify-email", withDevice({ action: "confirm", ticket, code }, deviceName), token),
    confirmWithPassword: (ticket, password, { deviceName, token } = {}) =>
      call("verify-email", withDevice({ action: "confirm", ticket, password }, deviceName), token),
    verifyOwnEmail: (token) => call("verify-email", { action: "verify_own_email" }, token),
    resetRequest: (email) => call("verify-email", { action: "reset_request", email }),
    resetConfirm: (ticket, code, password, { deviceName } = {}) =>
      call("verify-email", withDevice({ action: "reset_confirm", ticket, code, password }, deviceName)),
    /** A notice's "This wasn't me" (its link's `#not-me=` token): every session ends. */
    notMe: (token) => call("verify-email", { action: "not_me", token }),

    // The session's own.
    session: (token) => call("session", {}, token),
    signOut: (token, { scope, sessionId } = {}) =>
      call("sign-out", sessionId ? { sessionId } : scope ? { scope } : {}, token),
    deleteAccount: (token, { appleAuthorizationCode, appleIdentityToken, appleRawNonce } = {}) =>
      call("delete-account", { appleAuthorizationCode, appleIdentityToken, appleRawNonce }, token),

    // account: what is stored, and the settings (rule 18; each but change_password wants a recent sign-in).
    getAccount: (token) => call("account", { action: "get" }, token),
    updateName: (token, name) => call("account", { action: "update", name }, token),
    updateLanguage: (token, language) => call("account", { action: "update", language }, token),
    changePassword: (token, currentPassword, newPassword) =>
      call("account", { action: "change_password", currentPassword, newPassword }, token),
    setPassword: (token, newPassword) => call("account", { action: "set_password", newPassword }, token),
    changeEmail: (token, newEmail, { acceptAsTyped } = {}) =>
      call("account", { action: "change_email", newEmail, acceptAsTyped }, token),
    linkGoogle: (token, { idToken, rawNonce }) =>
      call("account", { action: "link", provider: "google", idToken, rawNonce }, token),
    linkApple: (token, { identityToken, rawNonce }) =>
      call("account", { action: "link", provider: "apple", identityToken, rawNonce }, token),
    unlink: (token, provider, { appleAuthorizationCode } = {}) =>
      call("account", { action: "unlink", provider, appleAuthorizationCode }, token),

    // Passkeys: the raw steps, and the whole ceremonies with the browser's WebAuthn.
    passkeySignInBegin: () => call("signin-passkey", { action: "begin" }),
    passkeySignInFinish: (ceremonyId, credential, { deviceName } = {}) =>
      call("signin-passkey", withDevice({ action: "finish", ceremonyId, credential }, deviceName)),
    passkeyRegisterBegin: (token) => call("passkey", { action: "register_begin" }, token),
    passkeyRegisterFinish: (token, ceremonyId, credential, { name } = {}) =>
      call("passkey", { action: "register_finish", ceremonyId, credential, name }, token),
    listPasskeys: (token) => call("passkey", { action: "list" }, token),
    deletePasskey: (token, passkeyId) => call("passkey", { action: "delete", passkeyId }, token),

    /** Signs in with a passkey: `mediation: "conditional"` for the autofill (pass a `signal` to
     * stop it). The browser's own refusal (the person closed its sheet) is thrown as is: a
     * DOMException named NotAllowedError or AbortError, which a page answers with nothing. */
    async signInWithPasskey({ mediation, signal, deviceName } = {}) {
      const begin = await call("signin-passkey", { action: "begin" });
      const credential = await navigator.credentials.get({
        publicKey: requestOptionsFromJSON(begin.publicKey), mediation, signal,
      });
      return call("signin-passkey", withDevice(
        { action: "finish", ceremonyId: begin.ceremonyId, credential: credentialToJSON(credential) }, deviceName));
    },

    /** Adds a passkey to the signed-in account: `{passkeyId, createdAt}`. */
    async addPasskey(token, { name } = {}) {
      const begin = await call("passkey", { action: "register_begin" }, token);
      const credential = await navigator.credentials.create({ publicKey: creationOptionsFromJSON(begin.publicKey) });
      return call("passkey",
        { action: "register_finish", ceremonyId: begin.ceremonyId, credential: credentialToJSON(credential), name }, token);
    },
  };
}

// ---- The nonce (rule 21): 32 random bytes; the raw value to our server, its lowercase hex
// SHA-256 to the provider (Apple's and Firebase's rule, and frontdoor's for Google).

/** `{raw, hashed}`: `raw` is 32 random bytes as 64 hex digits, `hashed` the lowercase hex SHA-256
 * of that text (what `AppleID.auth.init({nonce})` and `google.accounts.id.initialize({nonce})` take). */
export async function makeNonce() {
  const raw = hex(crypto.getRandomValues(new Uint8Array(32)));
  return { raw, hashed: await sha256Hex(raw) };
}

export async function sha256Hex(text) {
  return hex(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))));
}

function hex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

// ---- The typo check: the rule of Sources/Shared/Email/TypoDomains.swift, over typos.json (the
// one table the server's is made from), passing Tests/Vectors/typos/vectors.json.

/** The typo table, fetched once (`/auth/kit/typos.json` by default). */
export async function loadTypoTable(url = new URL("typos.json", import.meta.url)) {
  const response = await fetch(url, { cache: "no-cache" });
  if (!response.ok) throw new FrontdoorError("unexpected_answer", `typos.json: HTTP ${response.status}`);
  return response.json();
}

/** The address the person most likely meant, or null: the domain lower-cased; a known top-level
 * slip put right; then a provider (of at least `editedProviderMinLength` code points) one edit
 * away, unless the domain is a provider or a real neighbour. Only an address that looks like one
 * gets a suggestion (the server refuses the rest as malformed). */
export function typoSuggestion(typed, table) {
  const address = String(typed).trim().normalize("NFC");
  const at = address.indexOf("@");
  if (at < 1 || at !== address.lastIndexOf("@") || /\s/u.test(address)) return null;
  const local = address.slice(0, at);
  // Nothing the server refuses is offered: a local part of at most 64 bytes, an address of 254.
  if (new TextEncoder().encode(local).length > 64 || addressTooLong(address)) return null;
  const domain = address.slice(at + 1).toLowerCase();
  const labels = domain.split(".");
  if (labels.length < 2 || labels.some((label) => label === "" || label.startsWith("-") || label.endsWith("-"))) return null;
  const tld = labels[labels.length - 1];
  if (!/^(\p{L}{2,}|xn--[a-z0-9-]+)$/u.test(tld)) return null;
  let fixed = domain;
  const slip = Object.hasOwn(table.topLevelSlips, tld) ? table.topLevelSlips[tld] : null;
  if (slip) fixed = domain.slice(0, domain.length - tld.length) + slip;
  if (!table.providers.includes(fixed) && !table.realNeighbours.includes(fixed)) {
    const provider = table.providers.find((p) =>
      Array.from(p).length >= table.editedProviderMinLength && oneEditAway(fixed, p));
    if (provider) fixed = provider;
  }
  const suggestion = `${local}@${fixed}`;
  return fixed === domain || addressTooLong(suggestion) ? null : suggestion;
}

// ---- An app's web view (issue 45): no windows open there, so the providers' own pages are
// reached by leaving the page and coming back (their redirect modes, through /auth/kit-return).

/** True in an app's web view, where `window.open` opens nothing: Android's WebView says "; wv)"
 * in its user agent, and iOS's WKWebView leaves out Safari's "Safari/" token (SFSafariViewController
 * and Safari keep it); an app's bridge (`window.webkit.messageHandlers.frontdoor`,
 * `window.FrontdoorAndroid`) says so as well. */
export function isWebView(userAgent, { bridge = false } = {}) {
  if (bridge) return true;
  const ua = String(userAgent);
  if (/; wv\)/.test(ua)) return true;
  return /\b(iPhone|iPad|iPod)\b/.test(ua) && /AppleWebKit\//.test(ua) && !/Safari\//.test(ua);
}

/** What `/auth/kit-return` sent back in the page's fragment (`#return=apple&id_token=…`), or null. */
export function parseReturn(hash) {
  const text = String(hash ?? "");
  if (!text.startsWith("#return=")) return null;
  const fields = new URLSearchParams(text.slice(1));
  const provider = fields.get("return");
  if (!["apple", "google", "error"].includes(provider)) return null;
  const out = { provider };
  for (const name of ["id_token", "code", "state", "user", "error", "credential"]) {
    if (fields.has(name)) out[name] = fields.get(name);
  }
  return out;
}

/** True past what the server takes as an address: 254 bytes of UTF-8 (RFC 5321's path). */
export function addressTooLong(address) {
  return new TextEncoder().encode(String(address)).length > 254;
}

/** Optimal string alignment distance of exactly one, in Unicode code points (as Swift's scalars). */
export function oneEditAway(a, b) {
  const x = Array.from(a), y = Array.from(b);
  if (x.length === y.length && x.every((c, i) => c === y[i])) return false;
  if (Math.abs(x.length - y.length) > 1) return false;
  let i = 0;
  while (i < Math.min(x.length, y.length) && x[i] === y[i]) i += 1;
  const same = (p, q, from, to) => p.length - from === q.length - to && p.slice(from).every((c, k) => c === q[to + k]);
  if (x.length === y.length) {
    if (same(x, y, i + 1, i + 1)) return true;
    return i + 1 < x.length && x[i] === y[i + 1] && x[i + 1] === y[i] && same(x, y, i + 2, i + 2);
  }
  return x.length > y.length ? same(x, y, i + 1, i) : same(x, y, i, i + 1);
}

// ---- WebAuthn JSON (base64url without padding, as PublicKeyCredential.toJSON writes it): the
// browser's own parse/toJSON where it has them, a small converter elsewhere.

export function base64urlToBytes(text) {
  const base64 = text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4);
  return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
}

export function bytesToBase64url(buffer) {
  const bytes = buffer instanceof Uint8Array ? buffer : new Uint8Array(buffer);
  let text = "";
  for (const b of bytes) text += String.fromCharCode(b);
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

const withIds = (list) => (list ?? []).map((d) => ({ ...d, id: base64urlToBytes(d.id) }));

export function creationOptionsFromJSON(json) {
  if (typeof PublicKeyCredential?.parseCreationOptionsFromJSON === "function") {
    return PublicKeyCredential.parseCreationOptionsFromJSON(json);
  }
  return {
    ...json, challenge: base64urlToBytes(json.challenge), user: { ...json.user, id: base64urlToBytes(json.user.id) },
    excludeCredentials: withIds(json.excludeCredentials),
  };
}

export function requestOptionsFromJSON(json) {
  if (typeof PublicKeyCredential?.parseRequestOptionsFromJSON === "function") {
    return PublicKeyCredential.parseRequestOptionsFromJSON(json);
  }
  return { ...json, challenge: base64urlToBytes(json.challenge), allowCredentials: withIds(json.allowCredentials) };
}

export function credentialToJSON(credential) {
  if (typeof credential.toJSON === "function") return credential.toJSON();
  const r = credential.response;
  const response = { clientDataJSON: bytesToBase64url(r.clientDataJSON) };
  if (r.attestationObject) {
    response.attestationObject = bytesToBase64url(r.attestationObject);
    if (typeof r.getTransports === "function") response.transports = r.getTransports();
  } else {
    response.authenticatorData = bytesToBase64url(r.authenticatorData);
    response.signature = bytesToBase64url(r.signature);
    if (r.userHandle) response.userHandle = bytesToBase64url(r.userHandle);
  }
  return { id: credential.id, rawId: bytesToBase64url(credential.rawId), type: credential.type, response };
}

// ---- The session: where the token is kept (docs/clients.md). sessionStorage by default (this tab
// only, gone when it closes, kept across reloads); `remember: true` puts it in localStorage (every
// tab, until signed out). Either is readable by any script of this origin: the page's strict CSP is
// what keeps other scripts out.

const SESSION_KEY = "frontdoor.session";

export function saveSession(body, { remember = false } = {}) {
  const session = {
    sessionToken: body.sessionToken, accountId: body.accountId, sessionId: body.sessionId ?? null,
    sessionExpiresAt: body.sessionExpiresAt,
  };
  clearSession();
  (remember ? localStorage : sessionStorage).setItem(SESSION_KEY, JSON.stringify(session));
  return session;
}

/** The kept session, or null (none, or past its expiry as last answered). */
export function currentSession() {
  for (const store of [sessionStorage, localStorage]) {
    const text = store.getItem(SESSION_KEY);
    if (!text) continue;
    try {
      const session = JSON.parse(text);
      if (session?.sessionToken && !(Date.parse(session.sessionExpiresAt) < Date.now())) return session;
    } catch (cause) {
      // A damaged entry is no session.
    }
    store.removeItem(SESSION_KEY);
  }
  return null;
}

export function clearSession() {
  sessionStorage.removeItem(SESSION_KEY);
  localStorage.removeItem(SESSION_KEY);
}
