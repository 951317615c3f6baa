// The sign-in page's own code (docs/clients.md), built on frontdoor.js. One screen at a time;
// every sentence from lang/<language>.json; every refusal one sentence of its "errors" table.
import * as frontdoor from "./frontdoor.js";

const $ = (id) => document.getElementById(id);
const LANGUAGES = ["en", "fr", "es", "de", "pt", "ar"];
const HINT_PAUSE_MS = 600;
const APPLE_LOCALES = { en: "en_US", fr: "fr_FR", es: "es_ES", de: "de_DE", pt: "pt_BR", ar: "ar_SA" };

const state = {
  config: null, strings: null, table: null, platform: "other", client: null, session: null, account: null,
  nonces: { apple: null, google: null }, appleSettings: null, appleForDeletion: false,
  proof: null, resetTicket: null, verifyTicket: null, keptAddress: null, reauthenticating: false,
  busy: false, conditional: null, notMe: null,
  // An app's web view: the providers' pages are left for and come back from (`/auth/kit-return`).
  redirect: false,
};

/** Where Apple and Google post back to in redirect mode (register it with both). */
const RETURN_URI = new URL("../kit-return", import.meta.url).href;
/** What the page keeps across leaving for a provider's page: each provider's raw nonce (and
 * Apple's `state`), so that what comes back is checked as after a window. */
const PENDING = "frontdoor.return";

// ---- Language and words.

function chooseLanguage() {
  for (const tag of navigator.languages ?? [navigator.language]) {
    const base = String(tag).toLowerCase().split("-")[0];
    if (LANGUAGES.includes(base)) return base;
  }
  return "en";
}

function t(key, values = {}) {
  const text = state.strings.ui[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (values[name] !== undefined ? String(values[name]) : whole));
}

/** The one sentence for a refusal: its code's, or its password reason's. */
export function sentence(error) {
  const { errors, reasons } = state.strings;
  if (error?.code === "invalid_password" && error.reason && reasons[error.reason]) {
    return reasons[error.reason].replace("{minLength}", String(error.minLength ?? state.config?.passwordMinLength ?? 8));
  }
  return errors[error?.code] ?? errors.unknown;
}

function applyStrings() {
  document.documentElement.lang = state.strings.language;
  // Arabic reads right to left; the CSS is written in logical directions (start, end).
  document.documentElement.dir = state.strings.dir ?? "ltr";
  document.title = t("title");
  for (const element of document.querySelectorAll("[data-i18n]")) element.textContent = t(element.dataset.i18n);
  for (const back of document.querySelectorAll("button.back")) back.textContent = t("back");
}

async function fetchJSON(path) {
  const response = await fetch(new URL(path, import.meta.url), { cache: "no-cache" });
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
  return response.json();
}

// ---- Screens and messages.

function show(name, { focus = true } = {}) {
  for (const screen of document.querySelectorAll(".screen")) screen.hidden = screen.id !== `screen-${name}`;
  for (const message of document.querySelectorAll(".error, .note[role]")) message.textContent = "";
  $("loading").hidden = true;
  $("main").removeAttribute("aria-busy");
  if (focus) $(`${name}-title`)?.focus();
}

function fail(where, error) {
  $(`${where}-error`).textContent = typeof error === "string" ? error : sentence(error);
}

/** Runs `work` once at a time (a second tap while it runs does nothing; nothing is disabled). */
async function once(work) {
  if (state.busy) return;
  state.busy = true;
  $("main").setAttribute("aria-busy", "true");
  try {
    await work();
  } finally {
    state.busy = false;
    $("main").removeAttribute("aria-busy");
  }
}

/** What this device calls itself in the device list ("Safari on iPhone"). */
function deviceName() {
  const ua = navigator.userAgent;
  const os = /iPhone/.test(ua) ? "iPhone" : /iPad/.test(ua) ? "iPad" : /Android/.test(ua) ? "Android"
    : /Macintosh/.test(ua) ? "Mac" : /Windows/.test(ua) ? "Windows" : /CrOS/.test(ua) ? "ChromeOS" : "Linux";
  const browser = /Edg\//.test(ua) ? "Edge" : /Firefox\//.test(ua) ? "Firefox"
    : /(Chrome|CriOS|Chromium)\//.test(ua) ? "Chrome" : /Safari\//.test(ua) ? "Safari" : "Browser";
  return `${browser} on ${os}`;
}

function detectPlatform() {
  const ua = navigator.userAgent;
  if (/iPhone|iPad|iPod/.test(ua) || (/Macintosh/.test(ua) && navigator.maxTouchPoints > 1)) return "ios";
  if (/Android/.test(ua)) return "android";
  return "other";
}

// ---- Signed in.

function signedIn(body) {
  state.session = frontdoor.saveSession(body);
  state.reauthenticating = false;
  // An app's web view hears it too (docs/clients.md): the session body, as the endpoint answered it.
  window.dispatchEvent(new CustomEvent("frontdoor:session", { detail: body }));
  window.webkit?.messageHandlers?.frontdoor?.postMessage(JSON.stringify(body));
  window.FrontdoorAndroid?.onSession?.(JSON.stringify(body));
  return showAccount();
}

/** A sign-in's refusal, wherever it came from. */
function signInFailed(error) {
  if (error?.code === "proof_required") return showProof(error);
  if (error?.code === "invalid_email" && error.suggestion) {
    showHint(error.suggestion);
    return undefined;
  }
  fail("signin", error);
  return undefined;
}

/** A session the server no longer knows: back to signing in. */
function sessionEnded(error) {
  if (error?.code !== "unauthorized") return false;
  frontdoor.clearSession();
  state.session = null;
  showSignIn();
  fail("signin", error);
  return true;
}

// ---- The provider buttons (rule 21: one per phone; closing a sheet is nothing).

function loadScript(url) {
  return new Promise((resolve, reject) => {
    const script = document.createElement("script");
    script.src = url;
    script.async = true;
    script.onload = resolve;
    script.onerror = () => reject(new Error(`could not load ${url}`));
    document.head.appendChild(script);
  });
}

function providersHere() {
  const listed = state.config?.providers?.[state.platform] ?? [];
  return listed.filter((provider) => state.config?.[provider]);
}

async function setUpProviders() {
  const providers = providersHere();
  $("divider").hidden = providers.length === 0;
  const work = [];
  if (providers.includes("apple")) work.push(setUpApple().catch(() => dropProvider("apple")));
  if (providers.includes("google")) work.push(setUpGoogle().catch(() => dropProvider("google")));
  await Promise.all(work);
}

/** A provider whose script did not load: its slot goes, rather than stay an empty box. */
function dropProvider(provider) {
  $(`slot-${provider}`).hidden = true;
  $("divider").hidden = $("slot-apple").hidden && $("slot-google").hidden;
}

async function setUpApple() {
  $("slot-apple").hidden = false;
  // Apple serves its script per locale; its button then speaks the page's language.
  await loadScript(state.config.apple.scriptUrl.replace("/en_US/", `/${APPLE_LOCALES[state.strings.language] ?? "en_US"}/`));
  await renewAppleNonce();
  // The button Apple's script draws calls signIn itself; its outcome arrives as these events.
  document.addEventListener("AppleIDSignInOnSuccess", (event) => {
    if (!state.appleForDeletion) once(() => appleSignIn(event.detail));
  });
  document.addEventListener("AppleIDSignInOnFailure", (event) => {
    if (!state.appleForDeletion) appleBackedOut(event.detail?.error);
  });
}

/** Apple's window closed, or its Cancel tapped, or a newer tap replaced it. */
const APPLE_BACKED_OUT = ["popup_closed_by_user", "user_cancelled_authorize", "user_trigger_new_signin_flow"];

/** Apple's sheet ended without an authorization. Backing out is nothing: no message, focus back
 * on the button. A window the browser refused (an app's web view the user agent did not give
 * away) goes to Apple's page instead, in the same tap; any other failure is said. */
async function appleBackedOut(error) {
  if (APPLE_BACKED_OUT.includes(error)) {
    document.querySelector("#appleid-signin [role=button]")?.focus();
    return;
  }
  if (error === "popup_blocked_by_browser" && !state.redirect) {
    state.redirect = true;
    await renewAppleNonce();
    window.AppleID.auth.signIn();
    return;
  }
  fail("signin", { code: error === "popup_blocked_by_browser" ? "popup_blocked" : "unknown" });
}

/** A new nonce (and in redirect mode a new `state`) for Apple's next sheet. */
async function renewAppleNonce() {
  state.nonces.apple = await frontdoor.makeNonce();
  if (state.redirect) {
    const appleState = (await frontdoor.makeNonce()).raw;
    state.appleSettings = {
      clientId: state.config.apple.clientId, scope: "name email", usePopup: false, redirectURI: RETURN_URI,
      state: appleState,
    };
    keepPending("apple", { raw: state.nonces.apple.raw, state: appleState });
  } else {
    state.appleSettings = {
      clientId: state.config.apple.clientId, scope: "name email", usePopup: true,
      redirectURI: state.config.apple.redirectURI ?? `${location.origin}${location.pathname}`,
    };
  }
  window.AppleID?.auth.init({ ...state.appleSettings, nonce: state.nonces.apple.hashed });
}

function keepPending(provider, value) {
  let kept = {};
  try {
    kept = JSON.parse(sessionStorage.getItem(PENDING) ?? "{}") ?? {};
  } catch (error) {
    kept = {};
  }
  kept[provider] = value;
  sessionStorage.setItem(PENDING, JSON.stringify(kept));
}

/** What was kept before leaving for a provider's page, once: read and forgotten. */
function takePending() {
  const text = sessionStorage.getItem(PENDING);
  sessionStorage.removeItem(PENDING);
  try {
    return text ? JSON.parse(text) : null;
  } catch (error) {
    return null;
  }
}

/** Back from a provider's page (`#return=` from /auth/kit-return): the sign-in finishes as after
 * a window, with the nonce (and Apple's `state`) kept before leaving. Backing out is nothing. */
async function finishReturn(back, pending) {
  if (back.provider === "apple" && back.error) {
    if (!APPLE_BACKED_OUT.includes(back.error)) fail("signin", { code: "unknown" });
    return;
  }
  if (back.provider === "apple" && pending?.apple && back.state === pending.apple.state && back.id_token) {
    let user;
    try {
      user = back.user ? JSON.parse(back.user) : undefined;
    } catch (error) {
      user = undefined;
    }
    state.nonces.apple = { raw: pending.apple.raw };
    await once(() => appleSignIn({ authorization: { id_token: back.id_token, code: back.code }, user }));
    return;
  }
  if (back.provider === "google" && pending?.google && back.credential) {
    state.nonces.google = { raw: pending.google.raw };
    await once(() => googleSignIn({ credential: back.credential }));
    return;
  }
  // Nothing this page asked for (or the check of a post failed): it signs nobody in.
  fail("signin", { code: "unknown" });
}

async function appleSignIn(data) {
  const rawNonce = state.nonces.apple.raw;
  try {
    const name = data.user?.name ?? {};
    const body = await state.client.signInWithApple({
      identityToken: data.authorization.id_token, rawNonce, givenName: name.firstName || undefined,
      familyName: name.lastName || undefined, deviceName: deviceName(), token: reauthToken(),
      language: state.strings.language,
    });
    await renewAppleNonce();
    await signedIn(body);
  } catch (error) {
    await renewAppleNonce();
    signInFailed(error);
  }
}

async function setUpGoogle() {
  const slot = $("slot-google");
  slot.hidden = false;
  state.nonces.google = await frontdoor.makeNonce();
  await loadScript(state.config.google.scriptUrl);
  initializeGoogle();
  // Google's largest button is 40 px high; its rules want it no smaller than the page's other
  // buttons, so it is drawn narrower and scaled up, its proportions kept, to their height.
  // Google draws it at least 200 px wide, so the page's width bounds the scale (at large text).
  const target = $("signin-submit").getBoundingClientRect().height || 48;
  const room = slot.getBoundingClientRect().width || 320;
  const scale = Math.max(1, Math.min(target / 40, room / 200));
  const width = Math.min(400, Math.floor(room / scale));
  window.google.accounts.id.renderButton(slot, {
    type: "standard", theme: "outline", size: "large", text: "continue_with", shape: "rectangular", width,
    locale: state.strings.language,
  });
  const drawn = slot.firstElementChild;
  if (drawn && scale > 1) {
    // CSSOM, which the page's Content-Security-Policy allows (an inline style attribute it refuses).
    drawn.style.transform = `scale(${scale})`;
    slot.style.minHeight = `${Math.ceil(40 * scale)}px`;
  }
}

function initializeGoogle() {
  // In redirect mode Google posts the credential to login_uri (`/auth/kit-return`) instead.
  const mode = state.redirect ? { ux_mode: "redirect", login_uri: RETURN_URI } : { ux_mode: "popup" };
  if (state.redirect) keepPending("google", { raw: state.nonces.google.raw });
  window.google.accounts.id.initialize({
    client_id: state.config.google.clientId, nonce: state.nonces.google.hashed, auto_select: false, ...mode,
    context: "signin", callback: (response) => once(() => googleSignIn(response)),
  });
}

async function googleSignIn(response) {
  const rawNonce = state.nonces.google.raw;
  // The nonce is spent with this token: the next tap gets a new one (GIS uses the latest initialize).
  state.nonces.google = await frontdoor.makeNonce();
  initializeGoogle();
  try {
    await signedIn(await state.client.signInWithGoogle({
      idToken: response.credential, rawNonce, deviceName: deviceName(), token: reauthToken(),
      language: state.strings.language,
    }));
  } catch (error) {
    signInFailed(error);
  }
}

function reauthToken() {
  return state.reauthenticating ? state.session?.sessionToken : undefined;
}

// ---- Email and password, with the typo hint.

let hintTimer = null;

function checkAddress() {
  clearTimeout(hintTimer);
  const typed = $("email").value;
  const suggestion = state.table && typed !== state.keptAddress ? frontdoor.typoSuggestion(typed, state.table) : null;
  if (suggestion) showHint(suggestion); else $("email-hint").replaceChildren();
}

/** The hint's room, kept from the first "@" on (signin.css). */
function reserveHintRoom() {
  $("email-hint").classList.toggle("reserved", $("email").value.includes("@"));
}

function showHint(suggestion) {
  const hint = $("email-hint");
  const current = hint.querySelector("#hint-accept");
  if (current?.textContent === suggestion) return;
  const line = document.createElement("p");
  const accept = document.createElement("button");
  accept.type = "button";
  accept.id = "hint-accept";
  accept.className = "suggestion";
  accept.textContent = suggestion;
  accept.addEventListener("click", () => {
    $("email").value = suggestion;
    reserveHintRoom();
    hint.replaceChildren();
    $("email").focus();
  });
  line.append(`${t("hintDidYouMean")} `, accept, t("hintQuestionMark"));
  const keep = document.createElement("button");
  keep.type = "button";
  keep.id = "hint-keep";
  keep.className = "link";
  keep.textContent = t("hintKeep");
  keep.addEventListener("click", () => {
    state.keptAddress = $("email").value;
    hint.replaceChildren();
    $("email").focus();
  });
  hint.replaceChildren(line, keep);
}

async function submitSignIn(event) {
  event.preventDefault();
  const action = event.submitter?.value === "register" ? "register" : "login";
  await once(async () => {
    $("signin-error").textContent = "";
    const email = $("email").value.trim();
    const password = $("password").value;
    // Past what any address may be (254 bytes): said here, not sent (the server would refuse the
    // body as malformed, which reloading cannot help).
    if (frontdoor.addressTooLong(email)) {
      fail("signin", { code: "invalid_email" });
      return;
    }
    try {
      const body = action === "register"
        ? await state.client.register({
          email, password, acceptAsTyped: email === state.keptAddress?.trim() ? true : undefined, deviceName: deviceName(),
          language: state.strings.language,
        })
        : await state.client.logIn({ email, password, deviceName: deviceName(), token: reauthToken() });
      $("password").value = "";
      await signedIn(body);
    } catch (error) {
      // A first try that fails says what to do next, for an address with or without an account
      // alike: the server's answer tells neither.
      if (action === "login" && error?.code === "invalid_credentials" && !state.reauthenticating) {
        fail("signin", t("loginNoMatch"));
        return;
      }
      signInFailed(error);
    }
  });
}

// ---- Passkeys: the button, the autofill (conditional mediation), adding one.

const backedOut = (error) => error?.name === "NotAllowedError" || error?.name === "AbortError";

function passkeysHere() {
  return Boolean(state.config?.passkeys && window.PublicKeyCredential && navigator.credentials);
}

async function startPasskeyAutofill() {
  stopPasskeyAutofill();
  if (!passkeysHere() || !(await PublicKeyCredential.isConditionalMediationAvailable?.())) return;
  const controller = new AbortController();
  state.conditional = controller;
  try {
    const body = await state.client.signInWithPasskey({
      mediation: "conditional", signal: controller.signal, deviceName: deviceName(),
    });
    await once(() => signedIn(body));
  } catch (error) {
    // The autofill is an offer, never a step the person took: its failures say nothing.
  } finally {
    if (state.conditional === controller) state.conditional = null;
  }
}

function stopPasskeyAutofill() {
  state.conditional?.abort();
  state.conditional = null;
}

async function passkeySignIn() {
  stopPasskeyAutofill();
  await once(async () => {
    $("signin-error").textContent = "";
    try {
      await signedIn(await state.client.signInWithPasskey({ deviceName: deviceName() }));
    } catch (error) {
      if (backedOut(error)) {
        $("passkey-signin").focus();
        return;
      }
      fail("signin", error.code ? error : { code: "passkey_failed" });
    }
  });
  if (!state.session && document.activeElement === $("email")) startPasskeyAutofill();
}

async function addPasskey() {
  await once(async () => {
    try {
      await state.client.addPasskey(state.session.sessionToken, { name: deviceName() });
      await showAccount({ note: t("passkeyAdded"), focusOn: "add-passkey" });
    } catch (error) {
      if (backedOut(error)) {
        $("add-passkey").focus();
      } else if (error.code === "email_not_verified") {
        showVerify();
      } else if (error.code === "reauthentication_required") {
        reauthenticate(error);
      } else if (!sessionEnded(error)) {
        fail("account", error.code ? error : { code: "passkey_failed" });
      }
    }
  });
}

/** A setting needs a recent sign-in (rule 18): sign in again, with the session, then come back. */
function reauthenticate(error) {
  state.reauthenticating = true;
  showSignIn();
  $("signin-note").textContent = sentence(error);
}

// ---- proof_required: the password, or a code, then the join.

function showProof(error) {
  state.proof = { ticket: error.ticket, email: error.email, methods: error.methods ?? [] };
  const byPassword = state.proof.methods.includes("password");
  const byCode = state.proof.methods.includes("email_code");
  show("proof");
  $("proof-intro").textContent = t("proofIntro", { email: error.email });
  $("form-proof-password").hidden = !byPassword;
  $("proof-code-intro").textContent = byCode ? t(byPassword ? "proofCodeIntro" : "proofCodeOnlyIntro", { email: error.email }) : "";
  $("proof-send").hidden = !byCode;
  $("form-proof-code").hidden = true;
}

async function proofSendCode() {
  await once(async () => {
    try {
      await state.client.sendCode(state.proof.ticket);
      $("form-proof-code").hidden = false;
      $("proof-code-sent").textContent = t("codeSent", { email: state.proof.email });
      $("proof-code").focus();
    } catch (error) {
      fail("proof", error);
    }
  });
}

async function proofConfirm(event, how) {
  event.preventDefault();
  await once(async () => {
    try {
      const body = how === "password"
        ? await state.client.confirmWithPassword(state.proof.ticket, $("proof-password").value, { deviceName: deviceName() })
        : await state.client.confirmWithCode(state.proof.ticket, $("proof-code").value.trim(), { deviceName: deviceName() });
      $("proof-password").value = "";
      await signedIn(body);
    } catch (error) {
      fail("proof", error);
    }
  });
}

// ---- Forgot password: a code by mail, then the new password.

function showReset() {
  stopPasskeyAutofill();
  show("reset");
  $("reset-email").value = $("email").value;
  $("form-reset-request").hidden = false;
  $("form-reset-confirm").hidden = true;
}

async function resetRequest(event) {
  event.preventDefault();
  await once(async () => {
    const email = $("reset-email").value.trim();
    try {
      state.resetTicket = (await state.client.resetRequest(email)).ticket;
      $("form-reset-request").hidden = true;
      $("form-reset-confirm").hidden = false;
      $("reset-sent").textContent = t("resetSent", { email });
      $("reset-code").focus();
    } catch (error) {
      fail("reset", error);
    }
  });
}

async function resetConfirm(event) {
  event.preventDefault();
  await once(async () => {
    try {
      const body = await state.client.resetConfirm(
        state.resetTicket, $("reset-code").value.trim(), $("reset-password").value, { deviceName: deviceName() });
      $("reset-password").value = "";
      await signedIn(body);
    } catch (error) {
      fail("reset", error);
    }
  });
}

// ---- Own email: proven before a passkey (rule 17).

function showVerify() {
  show("verify");
  $("verify-intro").textContent = t("verifyEmailIntro", { email: state.account?.email ?? "" });
  $("form-verify-code").hidden = true;
  $("verify-send").hidden = false;
}

async function verifySend() {
  await once(async () => {
    try {
      const answer = await state.client.verifyOwnEmail(state.session.sessionToken);
      if (answer.emailVerified) {
        await showAccount();
        return;
      }
      state.verifyTicket = answer.ticket;
      await state.client.sendCode(answer.ticket);
      $("verify-send").hidden = true;
      $("form-verify-code").hidden = false;
      $("verify-sent").textContent = t("codeSent", { email: answer.email });
      $("verify-code").focus();
    } catch (error) {
      if (!sessionEnded(error)) fail("verify", error);
    }
  });
}

async function verifyConfirm(event) {
  event.preventDefault();
  await once(async () => {
    try {
      // With the session's bearer: the same session proven again, not a second one (the device
      // list would show this phone twice).
      const body = await state.client.confirmWithCode(state.verifyTicket, $("verify-code").value.trim(), {
        deviceName: deviceName(), token: state.session?.sessionToken,
      });
      state.session = frontdoor.saveSession(body);
      await showAccount({ focusOn: "add-passkey" });
    } catch (error) {
      fail("verify", error);
    }
  });
}

// ---- The account: passkeys, devices, sign out, delete.

function formatDate(text) {
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? "" : date.toLocaleDateString(state.strings.language, { dateStyle: "medium" });
}

function item(label, detail, action) {
  const li = document.createElement("li");
  const text = document.createElement("span");
  text.className = "item-text";
  const strong = document.createElement("strong");
  strong.textContent = label;
  text.append(strong);
  if (detail) {
    const small = document.createElement("span");
    small.className = "item-detail";
    small.textContent = detail;
    text.append(small);
  }
  li.append(text);
  if (action) li.append(action);
  return li;
}

function itemButton(text, label, onClick) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "small";
  button.textContent = text;
  button.setAttribute("aria-label", label);
  button.addEventListener("click", onClick);
  return button;
}

async function showAccount({ note = "", focusOn = null } = {}) {
  stopPasskeyAutofill();
  try {
    state.account = await state.client.getAccount(state.session.sessionToken);
  } catch (error) {
    if (sessionEnded(error)) return;
    throw error;
  }
  const account = state.account;
  show("account", { focus: !focusOn });
  $("account-who").textContent = t("signedInAs", { who: account.email ?? account.name ?? t("noEmail") });
  $("account-note").textContent = note;
  const passkeys = account.passkeys ?? [];
  $("passkey-list").replaceChildren(...(passkeys.length ? passkeys.map((passkey) => {
    const name = passkey.name || t("passkeyUnnamed");
    return item(name, t("since", { date: formatDate(passkey.createdAt) }), itemButton(
      t("deletePasskey"), t("deletePasskeyLabel", { name }), () => deletePasskey(passkey.passkeyId)));
  }) : [item(t("noPasskeys"))]));
  $("add-passkey").hidden = !passkeysHere();
  $("device-list").replaceChildren(...(account.sessions ?? []).map((session) => {
    const name = session.deviceName || t("unknownDevice");
    const detail = t("since", { date: formatDate(session.createdAt) });
    return session.current
      ? item(name, `${t("thisDevice")} · ${detail}`)
      : item(name, detail, itemButton(t("signOutDevice"), t("signOutDeviceLabel", { name }),
        () => signOutDevice(session.sessionId)));
  }));
  if (focusOn) $(focusOn).focus();
}

async function deletePasskey(passkeyId) {
  await once(async () => {
    try {
      await state.client.deletePasskey(state.session.sessionToken, passkeyId);
      await showAccount({ focusOn: "add-passkey" });
    } catch (error) {
      if (!sessionEnded(error)) fail("account", error);
    }
  });
}

async function signOutDevice(sessionId) {
  await once(async () => {
    try {
      await state.client.signOut(state.session.sessionToken, { sessionId });
      await showAccount({ focusOn: "sign-out" });
    } catch (error) {
      if (!sessionEnded(error)) fail("account", error);
    }
  });
}

async function signOut() {
  await once(async () => {
    try {
      await state.client.signOut(state.session.sessionToken);
    } catch (error) {
      // Signed out either way: a session the server no longer knows is gone already.
    }
    frontdoor.clearSession();
    state.session = null;
    showSignIn();
    $("signin-note").textContent = t("signedOut");
  });
}

function appleUsable() {
  return Boolean(window.AppleID && state.appleSettings && state.nonces.apple);
}

function accountHasApple() {
  return (state.account?.providers ?? []).some((p) => (p.provider ?? p) === "apple");
}

function showDelete() {
  show("delete");
  $("delete-apple").hidden = !(accountHasApple() && appleUsable());
}

/** Deletes at once (rule 6); on an Apple device an Apple account first gets Apple's fresh
 * authorization, asked in this very tap (a popup needs it), so the app is also removed from the
 * person's Apple Account. Closing Apple's window deletes without it. */
function deleteAccount() {
  if (state.busy) return;
  let apple = Promise.resolve({});
  // In redirect mode Apple's page would take the person away from the deletion: it goes without.
  if (accountHasApple() && appleUsable() && !state.redirect) {
    const nonce = state.nonces.apple;
    state.appleForDeletion = true;
    let asked;
    try {
      asked = window.AppleID.auth.signIn();
    } catch (error) {
      asked = Promise.reject(error);
    }
    apple = Promise.resolve(asked).then(
      (data) => ({
        appleAuthorizationCode: data.authorization.code, appleIdentityToken: data.authorization.id_token,
        appleRawNonce: nonce.raw,
      }),
      () => ({}),
    ).finally(() => {
      state.appleForDeletion = false;
    });
  }
  once(async () => {
    const fresh = await apple;
    if (fresh.appleRawNonce) await renewAppleNonce();
    try {
      const answer = await state.client.deleteAccount(state.session.sessionToken, fresh);
      frontdoor.clearSession();
      state.session = null;
      state.account = null;
      show("deleted");
      // An Apple account whose revocation was not asked, or was Apple's answer for another Apple
      // account: the person removes the app from their Apple Account themselves.
      const revocation = answer.appleRevocation;
      $("deleted-apple").textContent = revocation === "scheduled" ? t("deletedAppleScheduled")
        : revocation === "not_requested" || revocation === "identity_mismatch" ? t("deletedAppleNotRequested") : "";
    } catch (error) {
      if (!sessionEnded(error)) fail("delete", error);
    }
  });
}

// ---- The sign-in screen.

function showSignIn() {
  show("signin");
  $("register-submit").hidden = state.reauthenticating;
  $("forgot").hidden = state.reauthenticating;
  $("passkey-signin").hidden = !passkeysHere();
  // The autofill waits for the address field: a ceremony is a stored row counted against the
  // begin limits, which every page view (people behind one address) would use up otherwise.
  if (document.activeElement === $("email")) startPasskeyAutofill();
}

// ---- "This wasn't me" (a notice's link): one button, and nothing happens before it is pressed.

/** The token of a `#not-me=` link, taken out of the address bar so that it is not kept in history. */
export function notMeToken(hash) {
  const match = /^#not-me=([A-Za-z0-9_-]{1,128})$/.exec(hash ?? "");
  return match ? match[1] : null;
}

/** Shows the not-me screen when the address holds a link's token; true then. */
function takeNotMeLink() {
  const token = notMeToken(location.hash);
  if (!token) return false;
  state.notMe = token;
  history.replaceState(null, "", location.pathname + location.search);
  showNotMe();
  return true;
}

function showNotMe() {
  show("not-me");
  $("not-me-confirm").hidden = false;
  $("not-me-done").hidden = true;
}

async function notMe() {
  await once(async () => {
    try {
      await state.client.notMe(state.notMe);
    } catch (error) {
      fail("not-me", error.code === "invalid_ticket" ? t("notMeUsed") : error);
      return;
    }
    // This browser's session ended with every other.
    frontdoor.clearSession();
    state.session = null;
    state.notMe = null;
    $("not-me-confirm").hidden = true;
    $("not-me-done").hidden = false;
    $("not-me-note").textContent = t("notMeDone");
    $("not-me-done").focus();
  });
}

/** "Show password" beside a password field: a toggle, so that a long passphrase typed on a phone
 * can be read back. */
function wirePasswordToggle(button, field) {
  button.addEventListener("click", () => {
    const shown = field.type === "password";
    field.type = shown ? "text" : "password";
    button.setAttribute("aria-pressed", String(shown));
    button.textContent = t(shown ? "hidePassword" : "showPassword");
  });
}

function wire() {
  $("form-signin").addEventListener("submit", submitSignIn);
  wirePasswordToggle($("show-password"), $("password"));
  wirePasswordToggle($("show-reset-password"), $("reset-password"));
  $("email").addEventListener("focus", () => {
    if (!state.conditional && !state.session) startPasskeyAutofill();
  });
  $("email").addEventListener("input", () => {
    reserveHintRoom();
    clearTimeout(hintTimer);
    hintTimer = setTimeout(checkAddress, HINT_PAUSE_MS);
  });
  $("email").addEventListener("change", checkAddress);
  $("passkey-signin").addEventListener("click", passkeySignIn);
  $("forgot").addEventListener("click", showReset);
  $("proof-send").addEventListener("click", proofSendCode);
  $("form-proof-password").addEventListener("submit", (event) => proofConfirm(event, "password"));
  $("form-proof-code").addEventListener("submit", (event) => proofConfirm(event, "code"));
  $("form-reset-request").addEventListener("submit", resetRequest);
  $("form-reset-confirm").addEventListener("submit", resetConfirm);
  $("verify-send").addEventListener("click", verifySend);
  $("form-verify-code").addEventListener("submit", verifyConfirm);
  $("verify-back").addEventListener("click", () => showAccount());
  $("add-passkey").addEventListener("click", addPasskey);
  $("sign-out").addEventListener("click", signOut);
  $("delete-start").addEventListener("click", showDelete);
  $("delete-confirm").addEventListener("click", deleteAccount);
  $("delete-cancel").addEventListener("click", () => showAccount({ focusOn: "delete-start" }));
  $("deleted-again").addEventListener("click", showSignIn);
  $("not-me-confirm").addEventListener("click", notMe);
  $("not-me-done").addEventListener("click", showSignIn);
  for (const back of document.querySelectorAll("button.back")) back.addEventListener("click", showSignIn);
}

async function start() {
  state.strings = await fetchJSON(`lang/${chooseLanguage()}.json`);
  applyStrings();
  state.platform = detectPlatform();
  wire();
  try {
    state.config = await fetchJSON("config.json");
  } catch (error) {
    showSignIn();
    fail("signin", { code: "not_configured" });
    return;
  }
  state.client = frontdoor.createClient({ base: state.config.api ?? "/auth" });
  const rules = t("passwordRules", { minLength: state.config.passwordMinLength ?? 8 });
  $("password-rules").textContent = rules;
  $("reset-rules").textContent = rules;
  frontdoor.loadTypoTable(new URL("typos.json", import.meta.url)).then((table) => {
    state.table = table;
  }, () => {});
  state.redirect = frontdoor.isWebView(navigator.userAgent, {
    bridge: Boolean(window.webkit?.messageHandlers?.frontdoor || window.FrontdoorAndroid),
  });
  // Back from a provider's page: read before the providers are set up again (which keep anew).
  const back = frontdoor.parseReturn(location.hash);
  const pending = takePending();
  if (back) history.replaceState(null, "", location.pathname + location.search);
  const providers = setUpProviders();
  state.session = frontdoor.currentSession();
  // A link opened in a tab that already shows the page changes only the fragment.
  window.addEventListener("hashchange", takeNotMeLink);
  if (takeNotMeLink()) {
    // Nothing else: the one button waits.
  } else if (state.session) {
    try {
      await showAccount();
    } catch (error) {
      showSignIn();
      fail("signin", error);
    }
  } else {
    showSignIn();
  }
  await providers;
  if (back) await finishReturn(back, pending);
  document.documentElement.dataset.ready = "yes";
}

start();
