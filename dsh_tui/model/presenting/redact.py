"""Mask secrets in text meant for a shared bug report.

`redact` replaces credentials with ``…[redacted]``, keeping only a short, known
prefix that says what kind of secret it was (``sk-…[redacted]``,
``ghp_…[redacted]``, ``Bearer …[redacted]``, ``"apiKey": "…[redacted]"``,
``postgres://user:…[redacted]@host``, ``Cookie: …[redacted]``, ``mysql -p…[redacted]``,
``curl -u user:…[redacted]``, ``--password …[redacted]``, ``sig=…[redacted]``, ``SK…[redacted]``).
It works on raw log text too, where JSON sits inside JSON strings (``\\"token\\"``).
Ordinary text, hex SHAs and UUIDs are left alone. Best effort: it is a safety
net, not a guarantee; reports should still be read before they are shared.
Stdlib only.
"""

from __future__ import annotations

import re

__all__ = ["redact", "MASK"]

MASK = "…[redacted]"

# Secret-looking key names (the key must END with one of these words).
_KEY_WORDS = (r"api[_-]?key|apikey|access[_-]?key|secret[_-]?key|private[_-]?key|client[_-]?secret|secret"
              r"|token|password|passwd|passphrase|credentials?|authorization|auth[_-]?token|session[_-]?key"
              r"|account[_-]?key|shared[_-]?access[_-]?key|cookie")

_PRIVATE_KEY = re.compile(
    r"(-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----)(.*?)(-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)",
    re.DOTALL)

# Known token shapes: (pattern, prefix kept). Boundaries stop matches inside longer words.
_B = r"(?<![A-Za-z0-9_-])"
_TOKENS = [
    (re.compile(_B + r"sk-ant-[A-Za-z0-9_-]{16,}"), "sk-ant-"),
    (re.compile(_B + r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"), "sk-"),
    (re.compile(_B + r"github_pat_[A-Za-z0-9_]{20,}"), "github_pat_"),
    (re.compile(_B + r"(gh[pousr]_)[A-Za-z0-9]{30,}"), None),
    (re.compile(_B + r"(xox[abeoprs]-|xapp-)[A-Za-z0-9-]{10,}"), None),
    (re.compile(_B + r"([sr]k_(?:live|test)_)[A-Za-z0-9]{16,}"), None),  # Stripe secret / restricted
    (re.compile(_B + r"whsec_[A-Za-z0-9+/=]{24,}"), "whsec_"),  # Stripe webhook signing secret
    (re.compile(_B + r"SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}"), "SG."),  # SendGrid
    (re.compile(_B + r"npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])"), "npm_"),
    # A JWT: base64url JSON header ({"...) and payload, then the signature (empty for alg none).
    (re.compile(_B + r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"), "eyJ"),
    (re.compile(r"(?<![A-Za-z0-9])(AKIA|ASIA)[0-9A-Z]{16}(?![A-Za-z0-9])"), None),
    (re.compile(_B + r"AIza[0-9A-Za-z_-]{35}"), "AIza"),
    (re.compile(_B + r"(glpat-)[A-Za-z0-9_-]{20,}"), None),
    (re.compile(_B + r"(hf_)[A-Za-z0-9]{30,}"), None),
]

# Authorization header values: keep the scheme, drop the credentials.
_AUTH_HEADER = re.compile(
    r"(?i)(\bAuthorization\\?[\"']?\s*[:=]\s*\\?[\"']?)"
    r"(?:(Bearer|Basic|Token|Digest|Bot|Negotiate|AWS4-HMAC-SHA256)\s+)?"
    r"([^\s\"'\\,;]+(?:[ ,][A-Za-z]+=[^\s\"'\\,;]+)*)")
_BEARER = re.compile(r"(?i)\b(Bearer)\s+([A-Za-z0-9._~+/=-]{8,})")
# Cookie / Set-Cookie headers: the whole value (name=value pairs), up to a quote or the line's end.
_COOKIE = re.compile(r"(?i)(\b(?:set-)?cookie\\?[\"']?\s*:\s*)([^\s\"'\\;=]+=[^\r\n\"'\\]*)")
# Credentials in a URL: scheme://user:password@host (the password up to the last @ before the path).
_URL_CREDS = re.compile(r"(?i)\b([a-z][a-z0-9+.-]{1,30}://[^\s/?#@:\"'\\<>]*:)([^\s/?#\"'\\<>]+)(@)")
# A password glued to -p on the MySQL/MariaDB client command lines (and sshpass -p PASSWORD).
_DASH_P = re.compile(
    r"(\b(?:mysql(?:dump|admin|import|check|show|pump|sh)?|mariadb(?:-dump|-admin)?)\b[^\n|;&]{0,200}?\s-p)"
    r"('[^'\n]+'|\"[^\"\n]+\"|[^\s'\"\\]+)"
    r"|(\bsshpass\s+(?:-\w+\s+)*?-p\s*)('[^'\n]+'|[^\s'\"\\]+)")

# curl's user:password (-u / --user, glued or spaced, quoted or bare): the user stays, the password goes.
_CURL_USER = re.compile(
    r"(\bcurl\b[^\n|;&]{0,200}?\s(?:-u|--user)[ \t]*=?[ \t]*)"
    r"(?:(\\*['\"])([^'\"\n\\:]*:)([^'\"\n\\]+)(?=\2)|([^\s:'\"\\]+:)([^\s'\"\\]+))")
# A password, token or secret option with its value: --password 'spaced secret', --token=abc.
_OPTION = re.compile(
    r"(?i)((?<![\w-])--(?:[a-z0-9]+-)*(?:password|passwd|passphrase|token|secret|api-key|apikey)(?:[ \t]+|=))"
    r"('[^'\n]+'|\"[^\"\n]+\"|(\\+)\"[^\"\n]+?\3\"|[^\s'\"\\]+)")
# Azure shared access signatures: the sig= parameter of a SAS URL or token.
_SAS_SIG = re.compile(r"((?:^|(?<=[?&;\s\"'])|(?<=\\u0026))sig=)([A-Za-z0-9%+/=_-]{16,})")
# AWS credentials written as words: `aws_secret_access_key VALUE` (aws configure set), and a bare
# 40-character secret next to its key id (AKIA... wJalr..., as a CSV or a paste holds them).
_AWS_NAMED = re.compile(
    r"(?i)(\baws_(?:secret_access_key|session_token)\\?['\"]?[ \t]*[:=]?[ \t]*\\?['\"]?)([A-Za-z0-9/+=]{20,})")
_AWS_SECRET = r"[A-Za-z0-9/+]{40}"
_AWS_PAIR = re.compile(
    r"(?<![A-Za-z0-9])((?:AKIA|ASIA)[0-9A-Z]{16}[\s,:;|'\"=]{1,10})(" + _AWS_SECRET + r")(?![A-Za-z0-9/+=])"
    r"|(?<![A-Za-z0-9/+])(" + _AWS_SECRET + r")([\s,:;|'\"]{1,10}(?:AKIA|ASIA)[0-9A-Z]{16})(?![A-Za-z0-9])")
# Twilio API key SIDs: SK and 32 hex digits.
_TWILIO = re.compile(r"(?<![A-Za-z0-9_-])SK[0-9a-fA-F]{32}(?![A-Za-z0-9])")

# "key": "value" in JSON, plain and once-escaped (JSON inside a JSON string).
_JSON_PAIR = re.compile(r'(?i)("[A-Za-z0-9_.-]{0,64}?(?:' + _KEY_WORDS + r')"\s*:\s*")((?:[^"\\\n]|\\.)+)(")')
_JSON_PAIR_ESC = re.compile(r'(?i)(\\"[A-Za-z0-9_.-]{0,64}?(?:' + _KEY_WORDS + r')\\"\s*:\s*\\")(.+?)(\\")')
# FOO_API_KEY=value, export TOKEN="value", password: value (env files, shell, YAML, query strings).
# Anchored on the key word (a leading identifier part is found by looking back), so
# long identifier-like runs cost linear time.
_ASSIGN = re.compile(
    r"(?i)(?P<word>" + _KEY_WORDS + r")(?P<sep>[ \t]*=[ \t]*|:[ \t]+)"
    r"(?P<val>\"[^\"\n]+\"|'[^'\n]+'|[^\s\"'&,;<>()\[\]{}]+)(?![(\w])")
_IDENT = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
# `KEY= OTHER=...`: the next assignment, not a value (base64 padding `abc==` is a value)
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=(?![=]|\Z)")
_PASSWORDISH = re.compile(r"(?i)(?:password|passwd|passphrase)$")
_PLACEHOLDERS = frozenset(("null", "none", "true", "false", "undefined", "required", "optional", "redacted"))


def _looks_secret(value: str) -> bool:
    """A bearer-style token: long, or mixed with digits (not a word in prose)."""
    return len(value) >= 20 or (len(value) >= 8 and any(c.isdigit() for c in value))


def _keep_prefix(prefix: str | None):
    def sub(m: re.Match[str]) -> str:
        return (prefix if prefix is not None else m.group(1)) + MASK
    return sub


def _auth(m: re.Match[str]) -> str:
    scheme = m.group(2)
    if MASK in m.group(0) or (scheme is None and not _looks_secret(m.group(3))):
        return m.group(0)
    return m.group(1) + (scheme + " " if scheme else "") + MASK


def _url_creds(m: re.Match[str]) -> str:
    password = m.group(2)
    if MASK in password or password.startswith(("$", "<", "{", "*", "%")):
        return m.group(0)  # a placeholder (`$PASS`, `<password>`) or already masked
    return m.group(1) + MASK + m.group(3)


def _cookie(m: re.Match[str]) -> str:
    return m.group(0) if MASK in m.group(2) else m.group(1) + MASK


def _dash_p(m: re.Match[str]) -> str:
    head, value = (m.group(1), m.group(2)) if m.group(1) is not None else (m.group(3), m.group(4))
    bare = value.strip("'\"")
    if MASK in value or bare.startswith(("$", "<", "{", "%")):
        return m.group(0)
    return head + MASK


def _placeholder(value: str) -> bool:
    bare = value.strip("'\"")
    return MASK in value or bare.startswith(("$", "<", "{", "%", "*"))


def _curl_user(m: re.Match[str]) -> str:
    quote, user, password = (m.group(2), m.group(3), m.group(4)) if m.group(2) else ("", m.group(5), m.group(6))
    if _placeholder(password):
        return m.group(0)
    return m.group(1) + quote + user + MASK


def _option(m: re.Match[str]) -> str:
    return m.group(0) if _placeholder(m.group(2)) else m.group(1) + MASK


def _aws_named(m: re.Match[str]) -> str:
    return m.group(1) + MASK if _mixed(m.group(2)) else m.group(0)


def _mixed(value: str) -> bool:
    """Upper and lower case letters both: a base64 secret, not a hex SHA or a word."""
    return any(c.islower() for c in value) and any(c.isupper() for c in value)


def _aws_pair(m: re.Match[str]) -> str:
    if m.group(1) is not None:
        return m.group(1) + MASK if _mixed(m.group(2)) else m.group(0)
    return MASK + m.group(4) if _mixed(m.group(3)) else m.group(0)


def _bearer(m: re.Match[str]) -> str:
    return m.group(0) if not _looks_secret(m.group(2)) else m.group(1) + " " + MASK


def _pair(m: re.Match[str]) -> str:
    value = m.group(2)
    if MASK in value or not value.strip() or value.strip() in ("null", "none", "undefined"):
        return m.group(0)
    return m.group(1) + MASK + m.group(3)


def _key_before(m: re.Match[str]) -> str:
    """The whole key: the matched word plus the identifier characters just before it."""
    text, start = m.string, m.start()
    i = start
    while i > 0 and start - i < 64 and text[i - 1] in _IDENT:
        i -= 1
    return text[i:start] + m.group("word")


def _assign(m: re.Match[str]) -> str:
    word, sep, value = m.group("word"), m.group("sep"), m.group("val")
    bare = value.strip("\"'")
    if (MASK in m.string[m.start("val"):m.end("val") + len(MASK)] or _ASSIGNMENT.match(bare) or not bare
            or bare.startswith(("$", "%", "{{", "<", "*")) or bare.lower() in _PLACEHOLDERS):
        return m.group(0)  # a reference or placeholder, not a secret
    quoted = value[0] in "\"'"
    if not quoted and not _PASSWORDISH.search(word):
        key = _key_before(m)
        env_style = key.upper() == key and "=" in sep  # FOO_API_KEY=...
        if not env_style and not _looks_secret(bare):
            return m.group(0)  # `token = token`, `Secret: keep it safe`: code or prose
    return word + sep + (value[0] + MASK + value[0] if quoted else MASK)


def redact(text: str) -> str:
    """``text`` with API keys, tokens, passwords and private keys masked."""
    if not text:
        return text
    text = _PRIVATE_KEY.sub(lambda m: m.group(1) + MASK + m.group(3), text)
    text = _AUTH_HEADER.sub(_auth, text)
    text = _BEARER.sub(_bearer, text)
    text = _COOKIE.sub(_cookie, text)
    text = _URL_CREDS.sub(_url_creds, text)
    text = _DASH_P.sub(_dash_p, text)
    text = _CURL_USER.sub(_curl_user, text)
    text = _OPTION.sub(_option, text)
    text = _SAS_SIG.sub(lambda m: m.group(1) + MASK, text)
    text = _AWS_NAMED.sub(_aws_named, text)
    text = _AWS_PAIR.sub(_aws_pair, text)  # before the key id itself is masked
    text = _TWILIO.sub(lambda m: "SK" + MASK, text)
    for pattern, prefix in _TOKENS:
        text = pattern.sub(_keep_prefix(prefix), text)
    text = _JSON_PAIR.sub(_pair, text)
    text = _JSON_PAIR_ESC.sub(_pair, text)
    return _ASSIGN.sub(_assign, text)
