"""Settings of the stock DRF reference: what `django-admin startproject` writes, trimmed to the apps the
comment list needs, with DEBUG off and the database make reference makes (below)."""
import os
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent

# A throwaway key: the reference serves demo data on 127.0.0.1 only and signs nothing a client keeps.
SECRET_KEY = os.environ.get("DRFREF_SECRET_KEY", "drfref-reference-only-not-a-secret")
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]

INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "comments",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "drfref.urls"
WSGI_APPLICATION = "drfref.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# SQLite in the file DRFREF_DB names; PostgreSQL instead when DRFREF_PG_HOST names its socket directory.
# Persistent connections (CONN_MAX_AGE), as Django's deployment checklist advises: without, every request
# opens its database connection, a new server process on PostgreSQL.
if os.environ.get("DRFREF_PG_HOST"):
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.postgresql",
            "HOST": os.environ["DRFREF_PG_HOST"],
            "NAME": os.environ.get("DRFREF_PG_NAME", "drfref"),
            "USER": os.environ.get("DRFREF_PG_USER", "postgres"),
            "CONN_MAX_AGE": 60,
        }
    }
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": os.environ.get("DRFREF_DB", str(BASE_DIR / "db.sqlite3")),
            "CONN_MAX_AGE": 60,
        }
    }

AUTH_USER_MODEL = "comments.User"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_L10N = True
USE_TZ = True

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["comments.authentication.BearerTokenAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
}
