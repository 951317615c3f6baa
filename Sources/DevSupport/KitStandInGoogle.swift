/// The development stand-in for Google Identity Services' `google.accounts.id`, written from
/// Google's JavaScript reference (developers.google.com/identity/gsi/web/reference/js-reference),
/// not from Google's code:
/// - `initialize(IdConfiguration)` keeps the configuration (`client_id`, `callback`, `nonce`, …);
///   a later call replaces it, and the rendered button uses the latest;
/// - `renderButton(parent, {type, theme, size, text, shape, width, locale})` puts the button in a
///   frame of Google's origin (titled "Sign in with Google Button"), large 40 px high, and loads
///   Google's style sheet into the page, as GIS does (so the page's CSP must allow both); the
///   button speaks `locale` (English or French here);
/// - a tap on the button opens Google's window; picking an account calls `callback` with
///   `{credential, select_by: "btn", clientId}`; closing the window calls nothing at all (the
///   button flow has no cancel callback);
/// - with `ux_mode: "redirect"` a tap leaves the page for Google's account chooser, which posts
///   `credential` and `g_csrf_token` as a form to `login_uri`; the script first sets the
///   `g_csrf_token` cookie on the page's site to the same value, the double-submit check the
///   receiver makes (Google, "Verify the Google ID token on your server side": "the value of the
///   g_csrf_token cookie and the g_csrf_token POST parameter must match"); Cancel goes back;
/// - `prompt(listener)`: One Tap is never shown here; the listener hears a display moment that
///   is not displayed (reason `opt_out_or_no_session`, as with no Google session); `cancel` and
///   `disableAutoSelect` do nothing.
enum KitStandInGoogle {
    static func script(origin: String) -> String {
        #"""
        // frontdoor-dev's stand-in for Google Identity Services (development only; see KitStandInGoogle.swift).
        (function () {
          "use strict";
          var ORIGIN = "\#(origin)";
          var settings = null;
          var popup = null;
          var watch = null;

          function initialize(config) {
            if (!config || typeof config.client_id !== "string" || !config.client_id) {
              console.warn("[GSI_LOGGER]: Missing required parameter 'client_id'.");
            }
            settings = Object.assign({}, config);
          }

          function loadStyle() {
            if (document.getElementById("googleidentityservice_button_styles")) return;
            var link = document.createElement("link");
            link.id = "googleidentityservice_button_styles";
            link.rel = "stylesheet";
            link.href = ORIGIN + "/kit-standins/google/gsi/style";
            document.head.appendChild(link);
          }

          function renderButton(parent, options) {
            if (!(parent instanceof Element)) throw new Error("renderButton: the parent is not an element");
            options = options || {};
            loadStyle();
            var height = { large: 40, medium: 32, small: 20 }[options.size || "large"] || 40;
            var width = Math.min(400, Math.max(200, parseInt(options.width, 10) || 240));
            var query = "client_id=" + encodeURIComponent(settings ? settings.client_id : "") +
              "&text=" + encodeURIComponent(options.text || "signin_with") +
              "&theme=" + encodeURIComponent(options.theme || "outline") +
              "&shape=" + encodeURIComponent(options.shape || "rectangular") +
              "&height=" + height + "&width=" + width + "&locale=" + encodeURIComponent(options.locale || "") +
              "&origin=" + encodeURIComponent(window.location.origin);
            var frame = document.createElement("iframe");
            frame.src = ORIGIN + "/kit-standins/google/gsi/button?" + query;
            frame.title = "Sign in with Google Button";
            frame.width = String(width);
            frame.height = String(height);
            frame.className = "gsi-standin-frame";
            var wrapper = document.createElement("div");
            wrapper.className = "gsi-standin-button";
            wrapper.appendChild(frame);
            parent.replaceChildren(wrapper);
          }

          function openAccounts() {
            if (!settings) return;
            if (settings.ux_mode === "redirect") {
              var csrf = "";
              var bytes = new Uint8Array(16);
              crypto.getRandomValues(bytes);
              bytes.forEach(function (b) { csrf += (b < 16 ? "0" : "") + b.toString(16); });
              document.cookie = "g_csrf_token=" + csrf + "; path=/; SameSite=None; Secure";
              window.location.assign(ORIGIN + "/kit-standins/google/gsi/select?client_id=" +
                encodeURIComponent(settings.client_id) + "&nonce=" + encodeURIComponent(settings.nonce || "") +
                "&login_uri=" + encodeURIComponent(settings.login_uri || "") + "&g_csrf_token=" + csrf);
              return;
            }
            if (popup && !popup.closed) { popup.focus(); return; }
            popup = window.open(ORIGIN + "/kit-standins/google/gsi/select?client_id=" + encodeURIComponent(settings.client_id) +
              "&nonce=" + encodeURIComponent(settings.nonce || "") + "&origin=" + encodeURIComponent(window.location.origin),
              "g_standin_accounts", "width=500,height=600");
            clearInterval(watch);
            // Closing Google's window tells the page nothing: the button flow has no cancel callback.
            watch = setInterval(function () { if (!popup || popup.closed) { clearInterval(watch); popup = null; } }, 300);
          }

          window.addEventListener("message", function (event) {
            if (event.origin !== ORIGIN || !event.data || typeof event.data !== "object") return;
            if (event.data.type === "gsi-standin-click") openAccounts();
            if (event.data.type === "gsi-standin-credential" && popup && event.source === popup) {
              clearInterval(watch);
              popup = null;
              if (settings && typeof settings.callback === "function") {
                settings.callback({ credential: event.data.credential, select_by: "btn", clientId: settings.client_id });
              }
            }
          });

          function moment(type, displayed, reason) {
            return {
              getMomentType: function () { return type; },
              isDisplayMoment: function () { return type === "display"; },
              isDisplayed: function () { return displayed; },
              isNotDisplayed: function () { return type === "display" && !displayed; },
              getNotDisplayedReason: function () { return reason; },
              isSkippedMoment: function () { return type === "skipped"; },
              getSkippedReason: function () { return reason; },
              isDismissedMoment: function () { return type === "dismissed"; },
              getDismissedReason: function () { return reason; }
            };
          }

          function prompt(listener) {
            if (typeof listener === "function") {
              setTimeout(function () { listener(moment("display", false, "opt_out_or_no_session")); }, 0);
            }
          }

          window.google = window.google || {};
          window.google.accounts = window.google.accounts || {};
          window.google.accounts.id = {
            initialize: initialize, renderButton: renderButton, prompt: prompt,
            cancel: function () {}, disableAutoSelect: function () {}
          };
          if (typeof window.onGoogleLibraryLoad === "function") window.onGoogleLibraryLoad();
        })();
        """#
    }

    /// The style sheet GIS loads into the page (`/gsi/style`): only the frame's frame.
    static let style = #"""
        .gsi-standin-button { display: inline-block; line-height: 0; }
        .gsi-standin-frame { border: 0; margin: 0; padding: 0; overflow: hidden; color-scheme: normal; }
        """#

    /// The button inside Google's frame: Google's look (white, a grey border, the "G", Roboto-like
    /// 14 px medium text), the text chosen by `text`.
    static let buttonPage = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <title>Sign in with Google Button</title>
        <style>
          html, body { margin: 0; padding: 0; height: 100%; background: transparent; }
          button { box-sizing: border-box; width: 100%; height: 100%; display: flex; align-items: center; justify-content: center;
                   gap: 10px; background: #fff; color: #1f1f1f; border: 1px solid #747775; border-radius: 4px;
                   font: 500 14px/1 system-ui, sans-serif; cursor: pointer; padding: 0 12px; }
          button.pill { border-radius: 20px; }
          button.filled_black { background: #131314; color: #e3e3e3; border-color: #8e918f; }
          button.filled_blue { background: #1a73e8; color: #fff; border-color: #1a73e8; }
          svg { width: 18px; height: 18px; flex: none; }
        </style>
        </head>
        <body>
        <button id="gsi-button" type="button"><svg viewBox="0 0 18 18" aria-hidden="true">
          <path fill="#4285F4" d="M17.6 9.2c0-.6-.1-1.2-.2-1.8H9v3.4h4.8a4.1 4.1 0 0 1-1.8 2.7v2.2h2.9c1.7-1.6 2.7-3.9 2.7-6.5z"/>
          <path fill="#34A853" d="M9 18c2.4 0 4.5-.8 6-2.2l-2.9-2.2c-.8.5-1.8.9-3.1.9-2.4 0-4.4-1.6-5.1-3.8H.9v2.3A9 9 0 0 0 9 18z"/>
          <path fill="#FBBC05" d="M3.9 10.7a5.4 5.4 0 0 1 0-3.4V5H.9a9 9 0 0 0 0 8l3-2.3z"/>
          <path fill="#EA4335" d="M9 3.6c1.3 0 2.5.5 3.4 1.3l2.6-2.6A9 9 0 0 0 .9 5l3 2.3C4.6 5.2 6.6 3.6 9 3.6z"/>
        </svg><span id="gsi-text"></span></button>
        <script>
          var q = new URLSearchParams(location.search);
          var texts = (q.get("locale") || "").indexOf("fr") === 0
            ? { signin_with: "Se connecter avec Google", signup_with: "S'inscrire avec Google",
                continue_with: "Continuer avec Google", signin: "Se connecter" }
            : { signin_with: "Sign in with Google", signup_with: "Sign up with Google",
                continue_with: "Continue with Google", signin: "Sign in" };
          var button = document.getElementById("gsi-button");
          document.getElementById("gsi-text").textContent = texts[q.get("text")] || texts.signin_with;
          button.className = (q.get("shape") === "pill" ? "pill " : "") + (q.get("theme") || "outline");
          button.onclick = function () { parent.postMessage({ type: "gsi-standin-click" }, q.get("origin")); };
        </script>
        </body>
        </html>
        """#

    /// Google's account chooser window: an address, Continue or Cancel.
    static let selectPage = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Choose an account (development stand-in)</title>
        <style>
          body { font: 16px/1.4 system-ui, sans-serif; margin: 2rem; color: #1f1f1f; }
          label, input, button { display: block; width: 100%; box-sizing: border-box; }
          input { font: inherit; padding: .6rem; margin: .3rem 0 1rem; }
          button { font: inherit; min-height: 44px; margin-top: .6rem; border-radius: 20px; border: 1px solid #747775; }
          #google-continue { background: #0b57d0; color: #fff; border-color: #0b57d0; }
        </style>
        </head>
        <body>
        <h1>Choose an account</h1>
        <p>Development stand-in: no Google account is asked.</p>
        <label for="google-email">Google Account (email)</label>
        <input id="google-email" type="email" value="dev.google@gmail.com">
        <button id="google-continue" type="button">Continue</button>
        <button id="google-cancel" type="button">Cancel</button>
        <script>
          var q = new URLSearchParams(location.search);
          var loginUri = q.get("login_uri");
          document.getElementById("google-cancel").onclick = function () {
            if (loginUri) history.back(); else window.close();
          };
          document.getElementById("google-continue").onclick = function () {
            fetch("/kit-standins/google/gsi/mint?client_id=" + encodeURIComponent(q.get("client_id")) +
                  "&nonce=" + encodeURIComponent(q.get("nonce") || "") +
                  "&email=" + encodeURIComponent(document.getElementById("google-email").value))
              .then(function (r) { return r.json(); })
              .then(function (minted) {
                if (loginUri) {
                  var form = document.createElement("form");
                  form.method = "POST";
                  form.action = loginUri;
                  [["credential", minted.credential], ["g_csrf_token", q.get("g_csrf_token") || ""]].forEach(function (pair) {
                    var input = document.createElement("input");
                    input.type = "hidden";
                    input.name = pair[0];
                    input.value = pair[1];
                    form.appendChild(input);
                  });
                  document.body.appendChild(form);
                  form.submit();
                  return;
                }
                window.opener.postMessage({ type: "gsi-standin-credential", credential: minted.credential }, q.get("origin"));
                window.close();
              });
          };
        </script>
        </body>
        </html>
        """#
}
