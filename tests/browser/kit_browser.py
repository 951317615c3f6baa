#!/usr/bin/env python3
"""The web kit in a real browser (rule 21; docs/testing.md, "The web kit in a browser").

Debian's headless Chromium through its chromedriver, driven by Selenium, against the sign-in page
served by the real stack (nginx + fcgiwrap + the programs) and the development provider's
stand-ins for Apple's and Google's scripts. KitBrowserTests starts both and runs this script;
it prints one line per check and "kit-browser: N passed, M failed", and exits 1 on a failure.
Screenshots of each screen at phone size go to --artifacts.
"""
import argparse
import json
import os
import sys
import time
import traceback
import urllib.error
import urllib.request

from axe_selenium_python import Axe
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.common.virtual_authenticator import VirtualAuthenticatorOptions

IPHONE_UA = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
             "Version/17.5 Mobile/15E148 Safari/604.1")
ANDROID_UA = ("Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) "
              "Chrome/156.0.0.0 Mobile Safari/537.36")
PHONE = {"width": 393, "height": 852, "pixelRatio": 1, "touch": True, "mobile": True}
SERIOUS = ("serious", "critical")

args = None
passed = 0
failed = 0


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok   {name}")
    else:
        failed += 1
        print(f"FAIL {name}: {detail}")
    sys.stdout.flush()
    return ok


def driver(kind, language="en-US", text_percent=100, width=None, user_agent=None, no_windows=False):
    """`text_percent`: the browser's own text size (its default font size, 16 px at 100); `width`:
    the viewport's CSS width instead of the device's."""
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/lib/chromium/chromium"
    for arg in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1024,900", f"--lang={language}", "--no-first-run"]:
        options.add_argument(arg)
    options.add_experimental_option("prefs", {"intl.accept_languages": language,
                                               "webkit.webprefs.default_font_size": 16 * text_percent // 100})
    metrics = dict(PHONE, width=width) if width else PHONE
    if kind == "iphone":
        options.add_experimental_option("mobileEmulation", {"deviceMetrics": metrics, "userAgent": user_agent or IPHONE_UA})
    elif kind == "android":
        options.add_experimental_option("mobileEmulation", {"deviceMetrics": metrics, "userAgent": user_agent or ANDROID_UA})
    elif width:
        options.add_experimental_option("mobileEmulation", {"deviceMetrics": {
            "width": width, "height": 800, "pixelRatio": 1, "touch": False, "mobile": False}})
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    d = webdriver.Chrome(options=options, service=Service("/usr/bin/chromedriver"))
    d.set_script_timeout(30)
    if no_windows:
        # An app's web view: window.open opens nothing (WKWebView without a UIDelegate, Android's
        # WebView without setSupportMultipleWindows), in every page of the tab.
        d.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": "window.open = () => null;"})
    d.frontdoor_kind = kind + (" web view" if no_windows else "") + (f" {language}" if language != "en-US" else "") + (
        f" text {text_percent}%" if text_percent != 100 else "") + (f" {width} px" if width else "")
    d.frontdoor_log = []
    return d


def browser_log(d):
    """Everything the browser logged so far (chromedriver hands each entry out once)."""
    d.frontdoor_log += d.get_log("browser")
    return d.frontdoor_log


def close(d):
    """Every scenario ends here: nothing the page logged as an error, thrown or not. Two kinds are
    the outside world's and are printed, not failed: what the stand-ins of Apple's and Google's
    scripts log from their own URLs (Apple's styles its button inline, which the page's CSP
    refuses as it refuses Apple's own; the page's CSS carries the look; Apple's leaves its own
    promise uncaught when its sheet closes), and axe-core's fetch of Google's style sheet to read
    it (axe, the test's tool, reads every style sheet; the page never fetches it)."""
    try:
        errors = [e["message"] for e in browser_log(d) if e["level"] == "SEVERE" and e.get("source") != "network"]
        outside = [m for m in errors if m.startswith(args.provider + "/kit-standins/")
                   or ("Access to XMLHttpRequest at '" + args.provider + "/kit-standins/google/gsi/style'") in m]
        ours = [m for m in errors if m not in outside]
        check(f"{d.frontdoor_kind}: the page logged no error", not ours, ours)
        for message in sorted(set(outside)):
            print(f"note {d.frontdoor_kind}: the outside world's script logged: {message[:200]}")
    finally:
        d.quit()


def wait(d, condition, timeout=10, what="condition"):
    end = time.time() + timeout
    while time.time() < end:
        try:
            value = condition()
            if value:
                return value
        except Exception:  # an element not there yet
            pass
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def open_page(d):
    d.get(args.base + "/auth/kit/signin.html")
    wait(d, lambda: d.execute_script("return document.documentElement.dataset.ready === 'yes'"), 15, "the page")


def passkey_begins(d):
    """How many times the page asked /auth/signin-passkey (each begin stores a ceremony)."""
    return d.execute_script(
        "return performance.getEntriesByType('resource').filter(e => e.name.endsWith('/auth/signin-passkey')).length")


def screen(d):
    return d.execute_script("const s = [...document.querySelectorAll('.screen')].find(s => !s.hidden); return s && s.id")


def wait_screen(d, name, timeout=15):
    wait(d, lambda: screen(d) == f"screen-{name}", timeout, f"screen-{name} (on {screen(d)})")


def by(d, css):
    return d.find_element(By.CSS_SELECTOR, css)


def tap(d, css):
    """Clicks an element after scrolling it to the middle of the screen: under mobile emulation a
    click chromedriver scrolls to by itself can land on the element below."""
    element = by(d, css)
    d.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    element.click()


def text(d, css):
    return by(d, css).text


def shot(d, name):
    os.makedirs(args.artifacts, exist_ok=True)
    d.save_screenshot(os.path.join(args.artifacts, name + ".png"))


def snapshot(d):
    """What the person could notice: the page's markup, the values typed, what has focus."""
    return d.execute_script("""
        const a = document.activeElement;
        // chromedriver marks a frame it has switched into (cd_frame_id_): not the page's doing.
        return { html: document.querySelector('main').outerHTML.replace(/ cd_frame_id_="[^"]*"/g, ''),
                 values: [...document.querySelectorAll('input')].map(i => i.id + '=' + i.value),
                 focus: a ? a.tagName + '#' + a.id + '.' + (a.getAttribute('role') || '') + '@' + (a.parentElement && a.parentElement.id) : null,
                 screen: [...document.querySelectorAll('.screen')].filter(s => !s.hidden).map(s => s.id) };""")


def axe_check(d, name):
    axe = Axe(d)
    axe.inject()
    results = axe.run(options=json.dumps({"runOnly": {"type": "tag", "values": [
        "wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]}}))
    bad = [v for v in results["violations"] if v.get("impact") in SERIOUS]
    check(f"axe finds nothing serious on {name}", not bad, axe.report(bad))


def targets_check(d, name):
    small = d.execute_script("""
        return [...document.querySelectorAll('button, input, a, [role=button]')].filter(e => {
            if (e.closest('.provider-slot')) return false;   // the providers' own sizes
            const r = e.getBoundingClientRect();
            return r.width > 0 && r.height > 0 && (r.width < 44 || r.height < 44);
        }).map(e => (e.id || e.textContent.trim()) + ' ' + Math.round(e.getBoundingClientRect().width) + 'x' +
                    Math.round(e.getBoundingClientRect().height));""")
    check(f"every target on {name} is at least 44 by 44", not small, small)


def resources(d):
    return d.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")


def mail_code():
    with urllib.request.urlopen(args.provider + "/mail/code", timeout=5) as answer:
        return answer.read().decode().strip()


def popup(d, main):
    wait(d, lambda: len(d.window_handles) == 2, 10, "the provider's window")
    other = [h for h in d.window_handles if h != main][0]
    d.switch_to.window(other)
    return other


def back_to(d, main):
    wait(d, lambda: len(d.window_handles) == 1, 10, "the window to close")
    d.switch_to.window(main)


def apple_sheet(d, email=None, cancel=False, close=False):
    """Taps Apple's button and answers Apple's window: Continue as `email`, its Cancel, or closing
    the window itself."""
    main = d.current_window_handle
    tap(d, "#appleid-signin [role=button]")
    popup(d, main)
    if close:
        d.close()
    elif cancel:
        tap(d, "#apple-cancel")
    else:
        field = by(d, "#apple-email")
        field.clear()
        field.send_keys(email)
        tap(d, "#apple-continue")
    back_to(d, main)


def google_sheet(d, email=None, cancel=False):
    """Taps the button in Google's frame and answers Google's window (Continue as `email`, or the
    window closed)."""
    main = d.current_window_handle
    d.switch_to.frame(by(d, "#slot-google iframe"))
    tap(d, "#gsi-button")
    d.switch_to.default_content()
    popup(d, main)
    if cancel:
        d.close()
    else:
        field = by(d, "#google-email")
        field.clear()
        field.send_keys(email)
        tap(d, "#google-continue")
    back_to(d, main)


def fill(d, css, value):
    field = by(d, css)
    field.clear()
    field.send_keys(value)


def strings(language):
    with open(os.path.join(args.kit, "lang", language + ".json"), encoding="utf-8") as f:
        return json.load(f)


# ---- The scenarios.

def iphone():
    en = strings("en")
    d = driver("iphone")
    try:
        open_page(d)
        check("iPhone: Apple's button is shown", by(d, "#slot-apple").is_displayed()
              and by(d, "#appleid-signin [role=button]").get_attribute("aria-label") == "Continue with Apple")
        check("iPhone: no Google button", not by(d, "#slot-google").is_displayed()
              and not d.find_elements(By.CSS_SELECTOR, "#slot-google iframe"))
        check("iPhone: nothing asked of Google", not [r for r in resources(d) if "/google/" in r], resources(d))
        foreign = [r for r in resources(d) if not r.startswith(args.base)
                   and r != args.provider + "/kit-standins/apple/1/en_US/appleid.auth.js"]
        check("iPhone: no request but ours and Apple's script", not foreign, foreign)
        shot(d, "signin-iphone")
        axe_check(d, "the sign-in screen (iPhone)")
        targets_check(d, "the sign-in screen (iPhone)")

        # Closing Apple's sheet: the page exactly as it was, focus on the button (the page's doing:
        # the test moves no focus), no message, nothing thrown (close()).
        d.execute_script("document.addEventListener('AppleIDSignInOnFailure', e => { window.appleFailure = e.detail.error; });")
        for how, error in [("close", "popup_closed_by_user"), ("cancel", "user_cancelled_authorize")]:
            d.execute_script("window.appleFailure = null;")
            before = snapshot(d)
            apple_sheet(d, close=how == "close", cancel=how == "cancel")
            wait(d, lambda: d.execute_script("return window.appleFailure"), 5, "Apple's rejection")
            check(f"iPhone: Apple's window ({how}) rejects with {error}",
                  d.execute_script("return window.appleFailure") == error, d.execute_script("return window.appleFailure"))
            time.sleep(0.3)
            after = snapshot(d)
            focus = after.pop("focus")
            before.pop("focus")
            check(f"iPhone: backing out of Apple's sheet ({how}) changes nothing on the page", before == after,
                  f"{before} != {after}")
            check(f"iPhone: backing out of Apple's sheet ({how}) leaves the focus on its button",
                  focus == "DIV#.button@appleid-signin", focus)

        apple_sheet(d, "ada.apple@example.org")
        wait_screen(d, "account")
        check("iPhone: Apple's sign-in lands in the account", "ada.apple@example.org" in text(d, "#account-who"),
              text(d, "#account-who"))
        shot(d, "account-iphone")
        axe_check(d, "the account screen")
        targets_check(d, "the account screen")

        tap(d, "#delete-start")
        wait_screen(d, "delete")
        check("iPhone: deleting an Apple account says Apple will ask", by(d, "#delete-apple").is_displayed())
        shot(d, "delete-iphone")
        axe_check(d, "the delete screen")
        main = d.current_window_handle
        tap(d, "#delete-confirm")
        popup(d, main)
        fill(d, "#apple-email", "ada.apple@example.org")
        tap(d, "#apple-continue")
        back_to(d, main)
        wait_screen(d, "deleted")
        check("iPhone: the deletion revokes with Apple's fresh authorization",
              text(d, "#deleted-apple") == en["ui"]["deletedAppleScheduled"], text(d, "#deleted-apple"))
        shot(d, "deleted-iphone")
        axe_check(d, "the deleted screen")

        # Closing Apple's window while deleting deletes all the same, and says how to remove the app.
        tap(d, "#deleted-again")
        wait_screen(d, "signin")
        apple_sheet(d, "bea.apple@example.org")
        wait_screen(d, "account")
        tap(d, "#delete-start")
        wait_screen(d, "delete")
        main = d.current_window_handle
        tap(d, "#delete-confirm")
        popup(d, main)
        tap(d, "#apple-cancel")
        back_to(d, main)
        wait_screen(d, "deleted")
        check("iPhone: closing Apple's window deletes anyway and says where to remove the app",
              text(d, "#deleted-apple") == en["ui"]["deletedAppleNotRequested"], text(d, "#deleted-apple"))
        logs = [entry["message"] for entry in browser_log(d) if "script-src" in entry["message"]]
        check("iPhone: no script refused by the CSP", not logs, logs)
    finally:
        close(d)


def android():
    en = strings("en")
    d = driver("android")
    try:
        open_page(d)
        check("Android: Google's button is shown", by(d, "#slot-google iframe").is_displayed())
        # Google's rules: its button no smaller than the page's other buttons (drawn at Google's
        # largest, 40 px, and scaled up to theirs), and still inside the page.
        sizes = d.execute_script("""
            const g = document.querySelector('#slot-google iframe').getBoundingClientRect();
            const ours = document.getElementById('signin-submit').getBoundingClientRect();
            return [g.height, ours.height, g.left, g.right, document.documentElement.clientWidth];""")
        check("Android: Google's button is as large as the others", sizes[0] >= sizes[1] - 0.5
              and sizes[2] >= 0 and sizes[3] <= sizes[4], sizes)
        check("Android: no Apple button", not by(d, "#slot-apple").is_displayed())
        check("Android: nothing asked of Apple", not [r for r in resources(d) if "/apple/" in r], resources(d))
        foreign = [r for r in resources(d) if not r.startswith(args.base)
                   and not r.startswith(args.provider + "/kit-standins/google/gsi/")]
        check("Android: no request but ours and Google's (its script, style sheet and button)", not foreign, foreign)
        shot(d, "signin-android")
        axe_check(d, "the sign-in screen (Android)")
        targets_check(d, "the sign-in screen (Android)")

        d.execute_script("document.querySelector('#slot-google iframe').focus();")
        before = snapshot(d)
        google_sheet(d, cancel=True)
        time.sleep(0.6)
        after = snapshot(d)
        check("Android: closing Google's sheet changes nothing on the page", before == after, f"{before} != {after}")

        google_sheet(d, "ada.google@gmail.com")
        wait_screen(d, "account")
        check("Android: Google's sign-in lands in the account", "ada.google@gmail.com" in text(d, "#account-who"),
              text(d, "#account-who"))
        shot(d, "account-android")
        tap(d, "#sign-out")
        wait_screen(d, "signin")
        check("Android: signing out says so", text(d, "#signin-note") == en["ui"]["signedOut"])

        # proof_required: a password account's address, then Google with the same address.
        fill(d, "#email", "grace.proof@gmail.com")
        fill(d, "#password", args.password)
        tap(d, "#register-submit")
        wait_screen(d, "account")
        tap(d, "#sign-out")
        wait_screen(d, "signin")
        google_sheet(d, "grace.proof@gmail.com")
        wait_screen(d, "proof")
        check("Android: joining an unproven address asks for proof", by(d, "#form-proof-password").is_displayed()
              and by(d, "#proof-send").is_displayed())
        shot(d, "proof-android")
        axe_check(d, "the proof screen")
        targets_check(d, "the proof screen")
        fill(d, "#proof-password", args.password)
        tap(d, "#form-proof-password button")
        wait_screen(d, "account")
        check("Android: the proof joins Google to the account", "grace.proof@gmail.com" in text(d, "#account-who"))

        # An address Google does not speak for: proof by a code mailed to it, then the join.
        tap(d, "#sign-out")
        wait_screen(d, "signin")
        fill(d, "#email", "lin.proof@example.org")
        fill(d, "#password", args.password)
        tap(d, "#register-submit")
        wait_screen(d, "account")
        tap(d, "#sign-out")
        wait_screen(d, "signin")
        google_sheet(d, "lin.proof@example.org")
        wait_screen(d, "proof")
        check("Android: only a code proves an address Google does not speak for",
              not by(d, "#form-proof-password").is_displayed() and by(d, "#proof-send").is_displayed())
        earlier = last_mail()
        tap(d, "#proof-send")
        wait(d, lambda: by(d, "#proof-code").is_displayed(), 10, "the code field")
        wait(d, lambda: last_mail() != earlier, 10, "the code's mail")
        fill(d, "#proof-code", mail_code())
        tap(d, "#form-proof-code button")
        wait_screen(d, "account")
        check("Android: the code joins Google to the account", "lin.proof@example.org" in text(d, "#account-who"))
    finally:
        close(d)


def phone_email_and_passkeys():
    en = strings("en")
    d = driver("android")
    try:
        open_page(d)
        # A page view begins no passkey ceremony (a stored row, counted against the begin limits):
        # the autofill starts when the address field takes focus (the fourth review's T5-10).
        time.sleep(0.5)
        check("a page view begins no passkey ceremony", passkey_begins(d) == 0, passkey_begins(d))
        # The hint on leaving the field, then as it is typed (after the pause), before submitting.
        fill(d, "#email", "bob@hotmial.com")
        tap(d, "#password")
        wait(d, lambda: by(d, "#hint-accept").is_displayed(), 3, "the hint on leaving the field")
        check("the hint on leaving the field", text(d, "#hint-accept") == "bob@hotmail.com", text(d, "#hint-accept"))
        # A slow typist: the hint shows at a pause and goes at the next key, and the password field
        # stays where it was all along (its room is kept once the address has its "@").
        fill(d, "#email", "ada@hotmail.co")
        top = lambda: d.execute_script("return document.getElementById('password').getBoundingClientRect().top")
        wait(d, lambda: by(d, "#hint-accept").is_displayed(), 3, "the hint at a pause")
        shown = top()
        by(d, "#email").send_keys("m")
        wait(d, lambda: not d.find_elements(By.CSS_SELECTOR, "#hint-accept"), 3, "the hint to go")
        check("the hint moves nothing", top() == shown, f"{shown} then {top()}")
        # A 300-character address: no suggestion the server would refuse, and the page does not widen.
        fill(d, "#email", "a" * 300 + "@gmial.com")
        tap(d, "#password")
        time.sleep(1)
        check("no suggestion past the server's limits", not d.find_elements(By.CSS_SELECTOR, "#hint-accept"))
        check("a long address does not widen the page",
              d.execute_script("return document.documentElement.scrollWidth <= window.innerWidth"))
        fill(d, "#email", "ada@gmial.com")
        wait(d, lambda: text(d, "#hint-accept") == "ada@gmail.com", 3, "the hint as it is typed")
        check("a typed ada@gmial.com shows the hint before submitting", screen(d) == "screen-signin"
              and text(d, "#email-hint").startswith(en["ui"]["hintDidYouMean"]))
        shot(d, "hint-android")
        axe_check(d, "the sign-in screen with the hint")
        targets_check(d, "the sign-in screen with the hint")
        tap(d, "#hint-accept")
        check("one tap accepts the hint", by(d, "#email").get_attribute("value") == "ada@gmail.com"
              and not d.find_elements(By.CSS_SELECTOR, "#hint-accept"))
        fill(d, "#password", args.password)
        tap(d, "#register-submit")
        wait_screen(d, "account")
        check("the accepted hint registers ada@gmail.com", "ada@gmail.com" in text(d, "#account-who"),
              text(d, "#account-who"))

        # A passkey through Chromium's virtual authenticator: the address is proven first.
        options = VirtualAuthenticatorOptions()
        options.protocol = VirtualAuthenticatorOptions.Protocol.CTAP2
        options.transport = VirtualAuthenticatorOptions.Transport.INTERNAL
        options.has_resident_key = True
        options.has_user_verification = True
        options.is_user_verified = True
        options.is_user_consenting = True
        d.add_virtual_authenticator(options)
        tap(d, "#add-passkey")
        wait_screen(d, "verify")
        unproven = kept_session(d)
        shot(d, "verify-android")
        axe_check(d, "the verify screen")
        tap(d, "#verify-send")
        wait(d, lambda: by(d, "#verify-code").is_displayed(), 10, "the code field")
        fill(d, "#verify-code", mail_code())
        tap(d, "#form-verify-code button")
        wait_screen(d, "account")
        # The code is confirmed with the session's bearer: that session is proven in place, and
        # the device list shows this phone once.
        wait(d, lambda: d.find_elements(By.CSS_SELECTOR, "#device-list li"), 10, "the device list")
        devices = len(d.find_elements(By.CSS_SELECTOR, "#device-list li"))
        check("proving the address leaves one session of this phone", devices == 1 and kept_session(d) == unproven,
              f"{devices} devices")
        tap(d, "#add-passkey")
        wait(d, lambda: text(d, "#account-note") == en["ui"]["passkeyAdded"], 15, "the passkey")
        check("a passkey registers through the virtual authenticator", len(d.get_credentials()) == 1
              and len(d.find_elements(By.CSS_SELECTOR, "#passkey-list button")) == 1)
        shot(d, "account-passkey-android")
        axe_check(d, "the account screen with a passkey")
        # The autofill (conditional mediation): signed out, the page offers the passkey once the
        # address field has focus, and the virtual authenticator, unlike a person, picks it
        # without being asked.
        before = kept_session(d)
        tap(d, "#sign-out")
        wait_screen(d, "signin")
        tap(d, "#email")
        wait(d, lambda: screen(d) == "screen-account" and kept_session(d) not in (None, before), 15, "the autofill")
        check("the passkey autofill signs in", "ada@gmail.com" in text(d, "#account-who"), text(d, "#account-who"))
        # The passkey button; the authenticator first refuses (user verification fails), which
        # answers the autofill with a refusal the page keeps to itself.
        d.set_user_verified(False)
        tap(d, "#sign-out")
        wait_screen(d, "signin")
        tap(d, "#email")
        time.sleep(1)
        check("a refused passkey says nothing", screen(d) == "screen-signin" and not text(d, "#signin-error"),
              text(d, "#signin-error"))
        d.set_user_verified(True)
        tap(d, "#passkey-signin")
        wait_screen(d, "account")
        check("the passkey button signs in", "ada@gmail.com" in text(d, "#account-who"), text(d, "#account-who"))
        d.remove_virtual_authenticator()
        tap(d, "#sign-out")
        wait_screen(d, "signin")

        # Forgot password: a code by mail, a new password, signed in.
        tap(d, "#forgot")
        wait_screen(d, "reset")
        shot(d, "reset-android")
        axe_check(d, "the reset screen")
        targets_check(d, "the reset screen")
        fill(d, "#reset-email", "ada@gmail.com")
        earlier = last_mail()
        tap(d, "#form-reset-request button")
        wait(d, lambda: by(d, "#reset-code").is_displayed(), 10, "the reset code field")
        # The reset mail goes out a moment after the answer (mail.resetDelaySeconds).
        wait(d, lambda: last_mail() != earlier, 15, "the reset mail")
        code = mail_code()
        fill(d, "#reset-code", code)
        fill(d, "#reset-password", args.password + " anew")
        tap(d, "#form-reset-confirm button.primary")
        wait_screen(d, "account")
        check("a reset by code signs in", "ada@gmail.com" in text(d, "#account-who"))
        tap(d, "#sign-out")
        wait_screen(d, "signin")

        # Errors: one sentence each, announced (role=alert).
        fill(d, "#email", "ada@gmail.com")
        fill(d, "#password", "not the password at all")
        tap(d, "#signin-submit")
        wait(d, lambda: text(d, "#signin-error"), 10, "the refusal")
        check("a wrong password says what to do next", text(d, "#signin-error") == en["ui"]["loginNoMatch"]
              and by(d, "#signin-error").get_attribute("role") == "alert", text(d, "#signin-error"))
        # A newcomer's first try (an address without an account) reads the very same: what to do
        # next, for either case, without telling which.
        fill(d, "#email", "nobody.yet@example.org")
        tap(d, "#signin-submit")
        wait(d, lambda: text(d, "#signin-error") == en["ui"]["loginNoMatch"] and by(d, "#password").get_attribute("value"),
             10, "the same sentence")
        check("a first try without an account says the same", text(d, "#signin-error") == en["ui"]["loginNoMatch"])
        # "Show password": the passphrase can be read back, and hidden again.
        tap(d, "#show-password")
        check("show password shows it", by(d, "#password").get_attribute("type") == "text"
              and by(d, "#show-password").get_attribute("aria-pressed") == "true"
              and text(d, "#show-password") == en["ui"]["hidePassword"])
        tap(d, "#show-password")
        check("and hides it again", by(d, "#password").get_attribute("type") == "password"
              and text(d, "#show-password") == en["ui"]["showPassword"])
        fill(d, "#email", "short.password@example.org")
        fill(d, "#password", "abc")
        tap(d, "#register-submit")
        wait(d, lambda: text(d, "#signin-error") not in ("", en["ui"]["loginNoMatch"]), 10,
             "the password refusal")
        said = text(d, "#signin-error")
        check("a refused password's reason is a sentence",
              said in [r.replace("{minLength}", str(m)) for r in en["reasons"].values() for m in range(8, 65)]
              or said == en["errors"]["invalid_password"], said)
        shot(d, "error-android")
    finally:
        close(d)


def kept_session(d):
    return d.execute_script("const s = sessionStorage.getItem('frontdoor.session'); return s && JSON.parse(s).sessionToken")


def last_mail():
    try:
        with urllib.request.urlopen(args.provider + "/mail/last", timeout=5) as answer:
            return answer.read().decode()
    except Exception:
        return ""


def api(endpoint, body, token=None):
    """The real server's answer, as (status, JSON): the script's own calls beside the page's."""
    request = urllib.request.Request(args.base + "/auth/" + endpoint, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    if token:
        request.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, json.loads(answer.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def not_me():
    """A notice's "This wasn't me" (rule 18): opening its link does nothing; its one button signs
    out every device, this browser's too; the link works once."""
    en = strings("en")
    d = driver("iphone")
    try:
        open_page(d)
        fill(d, "#email", "nora.notme@example.org")
        fill(d, "#password", args.password)
        tap(d, "#register-submit")
        wait_screen(d, "account")
        token = kept_session(d)
        earlier = last_mail()
        status, _ = api("account", {"action": "change_password", "currentPassword": args.password,
                                    "newPassword": args.password + " anew"}, token)
        check("the password is changed", status == 200, status)
        wait(d, lambda: last_mail() != earlier, 10, "the notice")
        notice = last_mail()
        links = [line for line in notice.splitlines() if "#not-me=" in line]
        check("the notice carries its one link", len(links) == 1 and links[0].startswith("http"), notice)
        d.get(links[0].strip())
        wait_screen(d, "not-me")
        check("the link opens the page's one button", by(d, "#not-me-confirm").is_displayed()
              and text(d, "#not-me-title") == en["ui"]["notMeTitle"], text(d, "#not-me-title"))
        check("the token leaves the address bar", "#" not in d.current_url, d.current_url)
        check("opening the link changes nothing", api("session", {}, token)[0] == 200)
        shot(d, "not-me-iphone")
        axe_check(d, "the not-me screen")
        targets_check(d, "the not-me screen")
        tap(d, "#not-me-confirm")
        wait(d, lambda: text(d, "#not-me-note"), 10, "the outcome")
        check("the button signs out every device", api("session", {}, token)[0] == 401
              and text(d, "#not-me-note") == en["ui"]["notMeDone"], text(d, "#not-me-note"))
        check("and this browser's session is forgotten", not kept_session(d))
        check("the focus moves to what comes next", d.switch_to.active_element.get_attribute("id") == "not-me-done")
        d.get(links[0].strip())
        wait_screen(d, "not-me")
        tap(d, "#not-me-confirm")
        wait(d, lambda: text(d, "#not-me-error"), 10, "the refusal")
        check("the link works once", text(d, "#not-me-error") == en["ui"]["notMeUsed"], text(d, "#not-me-error"))
    finally:
        close(d)


def desktop():
    d = driver("desktop")
    try:
        open_page(d)
        check("desktop: both buttons", by(d, "#slot-apple").is_displayed() and by(d, "#slot-google iframe").is_displayed())
        axe_check(d, "the sign-in screen (desktop)")

        # The typo vectors, through the module in the browser.
        with open(args.vectors, encoding="utf-8") as f:
            cases = json.load(f)["cases"]
        got = d.execute_async_script("""
            const [cases, done] = arguments;
            import('/auth/kit/frontdoor.js').then(async (m) => {
                const table = await m.loadTypoTable();
                done(cases.map(c => m.typoSuggestion(c.typed, table)));
            }).catch(e => done(String(e)));""", cases)
        wrong = [(c["typed"], c["suggestion"], g) for c, g in zip(cases, got)] if isinstance(got, list) else got
        wrong = [w for w in wrong if w[1] != w[2]] if isinstance(wrong, list) else wrong
        check(f"the JS typo check passes the {len(cases)} vectors", not wrong, wrong)

        # Every code the server can give has its own sentence, in both languages.
        with open(args.codes, encoding="utf-8") as f:
            codes = json.load(f)
        said = d.execute_async_script("""
            const [codes, done] = arguments;
            import('/auth/kit/signin.js').then(async (page) => {
                const fr = await (await fetch('/auth/kit/lang/fr.json')).json();
                done({ en: codes.map(c => page.sentence({ code: c })), fr: codes.map(c => fr.errors[c] || null),
                       unknown: page.sentence({ code: 'no such code' }) });
            }).catch(e => done(String(e)));""", codes)
        missing = [c for c, s in zip(codes, said["en"]) if not s or s == said["unknown"]]
        missing += [c + " (fr)" for c, s in zip(codes, said["fr"]) if not s]
        check(f"every one of the {len(codes)} server error codes has its sentence", not missing, missing)

        with urllib.request.urlopen(args.base + "/auth/kit/signin.html", timeout=5) as answer:
            policy = answer.headers.get("Content-Security-Policy", "")
        check("the page's CSP allows no inline script or style", "default-src 'none'" in policy
              and "unsafe-inline" not in policy and "script-src 'self' " in policy, policy)
    finally:
        close(d)


def french():
    fr = strings("fr")
    d = driver("iphone", language="fr-FR")
    try:
        open_page(d)
        check("and Apple's button speaks French", by(d, "#appleid-signin [role=button]").get_attribute("aria-label")
              == "Continuer avec Apple")
        check("a French browser gets the French page", d.title == fr["ui"]["title"]
              and text(d, "#signin-title") == fr["ui"]["title"] and d.execute_script("return document.documentElement.lang") == "fr")
        fill(d, "#email", "personne@example.org")
        fill(d, "#password", "pas le bon mot de passe")
        tap(d, "#signin-submit")
        wait(d, lambda: text(d, "#signin-error"), 10, "the refusal")
        check("and its sentences", text(d, "#signin-error") == fr["ui"]["loginNoMatch"], text(d, "#signin-error"))
        shot(d, "signin-iphone-fr")
        axe_check(d, "the French sign-in screen")
    finally:
        close(d)


def arabic():
    """Arabic, right to left: the page's words and direction follow the browser's language."""
    ar = strings("ar")
    d = driver("iphone", language="ar")
    try:
        open_page(d)
        check("an Arabic browser gets the Arabic page, right to left",
              d.execute_script("return [document.documentElement.lang, document.documentElement.dir]") == ["ar", "rtl"]
              and text(d, "#signin-title") == ar["ui"]["title"], text(d, "#signin-title"))
        field, label = by(d, "#email").rect, by(d, "label[for=email]").rect
        check("and its labels start on the right", label["x"] + label["width"] >= field["x"] + field["width"] - 2,
              (label, field))
        check("nothing scrolls sideways", d.execute_script("return document.documentElement.scrollWidth <= window.innerWidth"))
        fill(d, "#email", "personne@example.org")
        fill(d, "#password", "pas le bon mot de passe")
        tap(d, "#signin-submit")
        wait(d, lambda: text(d, "#signin-error"), 10, "the refusal")
        check("its sentences are Arabic", text(d, "#signin-error") == ar["ui"]["loginNoMatch"], text(d, "#signin-error"))
        shot(d, "signin-iphone-ar")
        axe_check(d, "the Arabic sign-in screen")
    finally:
        close(d)


def fits(d, name):
    """WCAG 2.2 AA 1.4.4 and 1.4.10 on what shows: nothing scrolls sideways, no control or label
    clips its text, our buttons' text is at least the body's, and the provider buttons are inside
    the page and at least as tall as ours (Apple's up to its own 64 px)."""
    found = d.execute_script("""
        const page = document.documentElement, body = parseFloat(getComputedStyle(document.body).fontSize);
        const shown = (e) => e.offsetParent !== null && e.getClientRects().length > 0;
        const ours = [...document.querySelectorAll('main button, main input, main label, main h1, main p')].filter(shown);
        const clipped = ours.filter((e) => e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).overflowX !== 'visible'
            || e.getBoundingClientRect().right > page.clientWidth + 0.5).map((e) => e.id || e.tagName);
        const small = [...document.querySelectorAll('main button')].filter(shown)
            .filter((b) => parseFloat(getComputedStyle(b).fontSize) < body - 0.5).map((b) => b.id || b.textContent);
        const primary = document.getElementById('signin-submit');
        const tall = primary && shown(primary) ? primary.getBoundingClientRect().height : 0;
        const providers = ['#appleid-signin > [role=button]', '#slot-google iframe']
            .map((css) => document.querySelector(css)).filter((e) => e && shown(e)).map((e) => {
                const r = e.getBoundingClientRect();
                // Google's is drawn at least 200 px wide and scaled: the page's width bounds it.
                const least = e.tagName === 'IFRAME' ? Math.min(tall, 40 * e.parentElement.parentElement.clientWidth / 200)
                    : Math.min(tall, 64);
                return { what: e.tagName, ok: r.left >= -0.5 && r.right <= page.clientWidth + 0.5 && r.height >= least - 0.5,
                         height: r.height, left: r.left, right: r.right };
            });
        return { sideways: page.scrollWidth > page.clientWidth, clipped, small, body, providers,
                 root: parseFloat(getComputedStyle(page).fontSize) };""")
    bad = found["sideways"] or found["clipped"] or found["small"] or not all(p["ok"] for p in found["providers"])
    check(f"{d.frontdoor_kind}: {name} reflows and keeps its text whole", not bad, found)
    return found


def large_text_and_reflow():
    """The three devices with the browser's text at 200% (1.4.4), and at 320 CSS pixels wide
    (1.4.10): the sign-in screen, and the account screen of a long address."""
    for kind in ("iphone", "android", "desktop"):
        for text_percent, width in ((200, None), (100, 320)):
            d = driver(kind, text_percent=text_percent, width=width)
            try:
                open_page(d)
                found = fits(d, "the sign-in screen")
                if text_percent == 200:
                    check(f"{d.frontdoor_kind}: the page's text follows the browser's size",
                          abs(found["root"] - 34) < 0.5, found["root"])
                shot(d, f"signin-{kind}-{text_percent}-{width or 'device'}")
                address = f"a.rather.long.address.for.{kind}.{text_percent}.{width or 0}@long-domain-name.example.org"
                fill(d, "#email", address)
                fill(d, "#password", args.password)
                tap(d, "#register-submit")
                wait_screen(d, "account")
                fits(d, "the account screen of a long address")
                shot(d, f"account-{kind}-{text_percent}-{width or 'device'}")
            finally:
                close(d)


IPHONE_WEBVIEW_UA = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
                     "Mobile/15E148")
ANDROID_WEBVIEW_UA = ("Mozilla/5.0 (Linux; Android 14; Pixel 7; wv) AppleWebKit/537.36 (KHTML, like Gecko) "
                      "Version/4.0 Chrome/156.0.0.0 Mobile Safari/537.36")


def apple_page(d, email=None, cancel=False):
    """Apple's own page, left for in redirect mode: Continue as `email`, or Cancel."""
    wait(d, lambda: d.find_elements(By.CSS_SELECTOR, "#apple-continue"), 10, "Apple's page")
    if cancel:
        tap(d, "#apple-cancel")
    else:
        fill(d, "#apple-email", email)
        tap(d, "#apple-continue")


def web_views():
    """An app's web view, where window.open opens nothing: the page leaves for the provider's own
    page and comes back through /auth/kit-return (issue 45, item 2). Apple on an iPhone's
    WKWebView, Google in Android's WebView, and an iPhone whose browser refused the window."""
    d = driver("iphone", user_agent=IPHONE_WEBVIEW_UA, no_windows=True)
    try:
        open_page(d)
        tap(d, "#appleid-signin [role=button]")
        apple_page(d, cancel=True)
        wait(d, lambda: d.execute_script("return document.documentElement.dataset.ready === 'yes'"), 15, "the page again")
        check("web view: backing out of Apple's page is nothing", screen(d) == "screen-signin"
              and not text(d, "#signin-error") and "#" not in d.current_url, (text(d, "#signin-error"), d.current_url))
        tap(d, "#appleid-signin [role=button]")
        apple_page(d, "ada.webview@example.org")
        wait_screen(d, "account")
        check("web view: Apple's page signs in on the iPhone", "ada.webview@example.org" in text(d, "#account-who")
              and "#" not in d.current_url, (text(d, "#account-who"), d.current_url))
        shot(d, "account-iphone-webview")
    finally:
        close(d)
    d = driver("android", user_agent=ANDROID_WEBVIEW_UA, no_windows=True)
    try:
        open_page(d)
        d.switch_to.frame(by(d, "#slot-google iframe"))
        tap(d, "#gsi-button")
        d.switch_to.default_content()
        wait(d, lambda: d.find_elements(By.CSS_SELECTOR, "#google-continue"), 10, "Google's page")
        fill(d, "#google-email", "bo.webview@gmail.com")
        tap(d, "#google-continue")
        wait_screen(d, "account")
        check("web view: Google's page signs in on Android", "bo.webview@gmail.com" in text(d, "#account-who"),
              text(d, "#account-who"))
    finally:
        close(d)
    # Safari's user agent, but the window refused all the same: the same tap goes to Apple's page.
    d = driver("iphone", no_windows=True)
    try:
        open_page(d)
        tap(d, "#appleid-signin [role=button]")
        apple_page(d, "cy.blocked@example.org")
        wait_screen(d, "account")
        check("a refused window goes to Apple's page instead", "cy.blocked@example.org" in text(d, "#account-who"),
              text(d, "#account-who"))
    finally:
        close(d)
    # A return nobody's page asked for (an Apple token without the state this tab kept) signs
    # nobody in; kit-return's own refusals are KitReturnTests'.
    d = driver("desktop")
    try:
        d.get(args.base + "/auth/kit/signin.html#return=apple&id_token=a.b.c&state=not-kept")
        wait(d, lambda: d.execute_script("return document.documentElement.dataset.ready === 'yes'"), 15, "the page")
        check("a return nobody asked for signs nobody in", screen(d) == "screen-signin" and not kept_session(d)
              and text(d, "#signin-error") and "#" not in d.current_url, (text(d, "#signin-error"), d.current_url))
    finally:
        close(d)


def main():
    global args
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", required=True, help="the stack, as http://localhost:PORT")
    parser.add_argument("--provider", required=True, help="the development provider's base URL")
    parser.add_argument("--artifacts", required=True, help="where the screenshots go")
    parser.add_argument("--kit", required=True, help="kits/web")
    parser.add_argument("--codes", required=True, help="a JSON list of every error code the server can give")
    parser.add_argument("--vectors", required=True, help="Tests/Vectors/typos/vectors.json")
    parser.add_argument("--password", required=True, help="the password the accounts are made with")
    parser.add_argument("--only", default="", help="a comma-separated list of scenarios")
    args = parser.parse_args()
    scenarios = {"iphone": iphone, "android": android, "phone": phone_email_and_passkeys, "desktop": desktop,
                 "french": french, "arabic": arabic, "not-me": not_me, "large": large_text_and_reflow,
                 "web-view": web_views}
    for name, scenario in scenarios.items():
        if args.only and name not in args.only.split(","):
            continue
        try:
            scenario()
        except Exception as error:
            check(f"scenario {name} ran to its end", False, "".join(traceback.format_exception(error)))
    print(f"kit-browser: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
