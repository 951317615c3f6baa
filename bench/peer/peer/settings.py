"""The benchmark's peer (docs/performance.md, "The peer"): django-allauth's headless API for an app
(session tokens), Google by ID token, on SQLite, as small as allauth's quickstart allows.

Everything that differs between runs comes from the environment, set by scripts/bench-peer:
PEER_DIR (the database and the secret key), PEER_CERTS_URL (Google's certificates in their v1 form,
on loopback: the run is offline) and PEER_GOOGLE_CLIENT_ID (the audience frontdoor also checks).
"""

import os
from pathlib import Path

PEER_DIR = Path(os.environ["PEER_DIR"])
SECRET_KEY = (PEER_DIR / "secret-key").read_text().strip()
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]

INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "allauth",
    "allauth.account",
    "allauth.socialaccount",
    "allauth.socialaccount.providers.google",
    "allauth.headless",
]

# allauth's quickstart, less what a JSON API does not use (messages, templates' context).
MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "allauth.account.middleware.AccountMiddleware",
]

ROOT_URLCONF = "peer.urls"
WSGI_APPLICATION = "peer.wsgi.application"
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "APP_DIRS": True,
        "OPTIONS": {"context_processors": ["django.template.context_processors.request"]},
    }
]

DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": PEER_DIR / "peer.sqlite3",
        # WAL and a busy timeout, as Django's docs advise for SQLite under concurrent workers.
        "OPTIONS": {"init_command": "PRAGMA journal_mode=WAL;", "timeout": 20},
        # Persistent connections (Django's docs, "Persistent connections"): one per worker, kept,
        # rather than one opened per request; the peer's best case.
        "CONN_MAX_AGE": None,
    }
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
USE_TZ = True

AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]

# The app's API only (no browser pages): sessions by token, as frontdoor's phone client uses them.
HEADLESS_ONLY = True
HEADLESS_CLIENTS = ("app",)
HEADLESS_FRONTEND_URLS = {}
ACCOUNT_EMAIL_VERIFICATION = "none"
SOCIALACCOUNT_PROVIDERS = {
    "google": {
        "APPS": [{"client_id": os.environ["PEER_GOOGLE_CLIENT_ID"], "secret": "", "key": ""}],
        "CERTS_URL": os.environ["PEER_CERTS_URL"],
        "ID_TOKEN_ISSUER": "https://accounts.google.com",
    }
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"stderr": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["stderr"], "level": "WARNING"},
}
