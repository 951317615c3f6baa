/// The development stand-in for Sign in with Apple JS (popup mode), written from Apple's public
/// API and the behaviour public reports describe, not from Apple's code:
/// - `AppleID.auth.init({clientId, redirectURI, scope?, state?, nonce?, usePopup?})` throws when
///   `clientId` or `redirectURI` is not a string, and draws the button into `#appleid-signin`
///   (its `data-color`, `data-border`, `data-type`): a `div` with `role="button"`,
///   `tabindex="0"` and the title as `aria-label`, whose look is set by inline styles (which a
///   strict Content-Security-Policy refuses, as it refuses Apple's: the page's CSS must carry it);
///   a click, Enter or Space signs in; the titles are in the locale of the script's URL;
/// - `AppleID.auth.signIn()` opens Apple's window and answers a promise: resolved with
///   `{authorization: {code, id_token, state}, user?}`, rejected with
///   `{error: "popup_closed_by_user"}` when the person closes the window (Apple's script polls
///   `closed`), `{error: "popup_blocked_by_browser"}` when no window opened, and
///   `{error: "user_trigger_new_signin_flow"}` for a sign-in a newer one replaced, and with
///   `{error: "user_cancelled_authorize"}` when the person taps Cancel in Apple's window
///   (a-tokyo/react-apple-signin-auth#73, capacitor-community/apple-sign-in#75,
///   patelmayankce/react-apple-login#39, aboutyou/dart_packages#97 after Apple's "Incorporating
///   Sign in with Apple into other platforms"); `AppleIDSignInOnSuccess` and `AppleIDSignInOnFailure`
///   events on `document` carry the same (Apple, "Configuring your webpage for Sign in with Apple").
/// - The window posts `{"method": "oauthDone", "data": …}` as JSON text to its opener, at the
///   origin of `redirectURI`, from Apple's origin (here the provider's).
/// - With `usePopup: false`, `signIn()` leaves the page for Apple's (`response_mode=form_post`, the
///   mode Apple requires when scopes are asked: "Request an authorization to the Sign in with
///   Apple server", Apple's REST API docs), which posts `code`, `id_token`, `state` and, the first
///   time, `user` (JSON text) to `redirectURI` as a form; a Cancel there posts
///   `error=user_cancelled_authorize` and `state`.
enum KitStandInApple {
    /// Apple's script speaks the locale its URL names (`…/1/fr_FR/appleid.auth.js`).
    static func script(origin: String, locale: String) -> String {
        let titles = locale.hasPrefix("fr")
            ? #"{ "sign-in": "Se connecter avec Apple", "continue": "Continuer avec Apple", "sign-up": "S'inscrire avec Apple" }"#
            : #"{ "sign-in": "Sign in with Apple", "continue": "Continue with Apple", "sign-up": "Sign up with Apple" }"#
        return #"""
        // frontdoor-dev's stand-in for Sign in with Apple JS (development only; see KitStandInApple.swift).
        (function () {
          "use strict";
          var ORIGIN = "\#(origin)";
          var TITLES = \#(titles);
          var settings = null;
          var pending = null;

          function drawButton() {
            var host = document.getElementById("appleid-signin");
            if (!host) return;
            var data = host.dataset || {};
            var type = (data.type || "sign-in").replace(" ", "-");
            var title = TITLES[type] || TITLES["sign-in"];
            var black = (data.color || "black") === "black";
            var border = data.border !== "false";
            host.innerHTML =
              '<div role="button" tabindex="0" aria-label="' + title + '" style="display: inline-flex; box-sizing: border-box;' +
              ' width: 100%; height: 100%; min-width: 140px; max-width: 375px; min-height: 30px; max-height: 64px;' +
              ' border-radius: 5px; background-color: ' + (black ? "black" : "white") + "; color: " + (black ? "white" : "black") +
              ";" + (border ? " border: .5px solid black;" : "") + ' padding-right: 10px; padding-left: 10px;">' +
              '<svg style="position: relative; top: 25%; pointer-events: none;" xmlns="http://www.w3.org/2000/svg"' +
              ' width="100%" height="50%" viewBox="0 -11.5 132 14" fill="' + (black ? "#fff" : "#000") + '">' +
              '<g><circle cx="5" cy="-4" r="5"></circle><text x="15" font-size="12px" font-family="system-ui, sans-serif">' +
              title + "</text></g></svg></div>";
            if (!host.dataset.standinListening) {
              host.dataset.standinListening = "yes";
              host.addEventListener("click", function () { signIn(); });
              host.addEventListener("keydown", function (event) {
                if (event.key === "Enter" || event.key === " ") { event.preventDefault(); signIn(); }
              });
            }
          }

          function init(config) {
            if (!config || typeof config.clientId !== "string") throw new Error('The "clientId" should be a string.');
            if (typeof config.redirectURI !== "string") throw new Error('The "redirectURI" should be a string.');
            ["scope", "state", "nonce"].forEach(function (name) {
              if (config[name] && typeof config[name] !== "string") throw new Error('The "' + name + '" should be a string.');
            });
            settings = Object.assign({}, config);
            drawButton();
          }

          function settle(outcome, value) {
            var done = pending;
            pending = null;
            if (!done) return;
            clearInterval(done.timer);
            if (!done.popup.closed) done.popup.close();
            document.dispatchEvent(new CustomEvent(outcome === "resolve" ? "AppleIDSignInOnSuccess" : "AppleIDSignInOnFailure",
              { detail: outcome === "resolve" ? value : { error: value.error } }));
            done[outcome](value);
          }

          function signIn(overrides) {
            if (!settings) throw new Error('The "init" function must be called first.');
            var config = Object.assign({}, settings, overrides || {});
            if (pending) settle("reject", { error: "user_trigger_new_signin_flow" });
            var query = "client_id=" + encodeURIComponent(config.clientId) +
              "&redirect_uri=" + encodeURIComponent(config.redirectURI) +
              "&response_type=" + encodeURIComponent("code id_token") +
              "&response_mode=" + (config.usePopup ? "web_message" : "form_post");
            ["scope", "state", "nonce"].forEach(function (name) {
              if (config[name]) query += "&" + name + "=" + encodeURIComponent(config[name]);
            });
            var url = ORIGIN + "/kit-standins/apple/auth/authorize?" + query;
            if (!config.usePopup) { window.location.assign(url); return undefined; }
            var popup = window.open(url, "AppleAuthentication", "width=700,height=700,resizable=no,location=no,menubar=no");
            if (!popup) {
              document.dispatchEvent(new CustomEvent("AppleIDSignInOnFailure", { detail: { error: "popup_blocked_by_browser" } }));
              return Promise.reject({ error: "popup_blocked_by_browser" });
            }
            return new Promise(function (resolve, reject) {
              pending = { resolve: resolve, reject: reject, popup: popup, timer: setInterval(function () {
                if (popup.closed) settle("reject", { error: "popup_closed_by_user" });
              }, 300) };
            });
          }

          window.addEventListener("message", function (event) {
            if (event.origin !== ORIGIN || !pending || event.source !== pending.popup) return;
            var message;
            try { message = JSON.parse(event.data); } catch (e) { return; }
            if (!message || message.method !== "oauthDone" || !message.data) return;
            if ("error" in message.data) settle("reject", message.data); else settle("resolve", message.data);
          });

          window.AppleID = { auth: { init: init, signIn: signIn, renderButton: drawButton } };
        })();
        """#
    }

    /// Apple's window: the person's Apple account (an address here), Continue or Cancel.
    static let authorizePage = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Sign in with Apple (development stand-in)</title>
        <style>
          body { font: 17px/1.4 system-ui, sans-serif; margin: 2rem; color: #1d1d1f; }
          label, input, button { display: block; width: 100%; box-sizing: border-box; }
          input { font: inherit; padding: .6rem; margin: .3rem 0 1rem; }
          button { font: inherit; min-height: 44px; margin-top: .6rem; border-radius: 8px; border: 1px solid #1d1d1f; }
          #apple-continue { background: #000; color: #fff; }
        </style>
        </head>
        <body>
        <h1>Sign in with Apple</h1>
        <p>Development stand-in: no Apple account is asked.</p>
        <label for="apple-email">Apple Account (email)</label>
        <input id="apple-email" type="email" value="dev.apple@example.org">
        <label for="apple-given">First name (sent on the first sign-in only)</label>
        <input id="apple-given" value="Dev">
        <button id="apple-continue" type="button">Continue</button>
        <button id="apple-cancel" type="button">Cancel</button>
        <script>
          var q = new URLSearchParams(location.search);
          var target = new URL(q.get("redirect_uri")).origin;
          var formPost = q.get("response_mode") === "form_post";
          // Redirect mode: the answer is a form posted to redirect_uri, the page left behind.
          function post(fields) {
            var form = document.createElement("form");
            form.method = "POST";
            form.action = q.get("redirect_uri");
            Object.keys(fields).forEach(function (name) {
              if (fields[name] === undefined) return;
              var input = document.createElement("input");
              input.type = "hidden";
              input.name = name;
              input.value = fields[name];
              form.appendChild(input);
            });
            document.body.appendChild(form);
            form.submit();
          }
          // Apple's own Cancel answers user_cancelled_authorize; closing the window is popup_closed_by_user.
          document.getElementById("apple-cancel").onclick = function () {
            if (formPost) { post({ error: "user_cancelled_authorize", state: q.get("state") || undefined }); return; }
            window.opener.postMessage(JSON.stringify({ method: "oauthDone", data: { error: "user_cancelled_authorize" } }), target);
            window.close();
          };
          document.getElementById("apple-continue").onclick = function () {
            var email = document.getElementById("apple-email").value;
            fetch("/kit-standins/apple/mint?client_id=" + encodeURIComponent(q.get("client_id")) +
                  "&nonce=" + encodeURIComponent(q.get("nonce") || "") + "&email=" + encodeURIComponent(email))
              .then(function (r) { return r.json(); })
              .then(function (minted) {
                var data = { authorization: { code: minted.code, id_token: minted.id_token, state: q.get("state") || undefined } };
                var given = document.getElementById("apple-given").value;
                if (given) data.user = { email: email, name: { firstName: given, lastName: "" } };
                if (formPost) {
                  post({ code: minted.code, id_token: minted.id_token, state: q.get("state") || undefined,
                         user: data.user ? JSON.stringify(data.user) : undefined });
                  return;
                }
                window.opener.postMessage(JSON.stringify({ method: "oauthDone", data: data }), target);
                window.close();
              });
          };
        </script>
        </body>
        </html>
        """#
}
