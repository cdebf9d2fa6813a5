"""Secrets are masked for shared bug reports; ordinary text, SHAs and UUIDs are not."""

from __future__ import annotations

import pytest

from dsh_tui.model.redact import MASK, redact

SECRET = "Zq8xK2mN7vB4cR9tY1wE5uJ3"  # a token-looking value reused below


@pytest.mark.parametrize("text,expected", [
    (f"key sk-{SECRET}abcd end", f"key sk-{MASK} end"),
    (f"sk-proj-{SECRET}_-xyz", f"sk-{MASK}"),
    (f"ANTHROPIC sk-ant-api03-{SECRET}", f"ANTHROPIC sk-ant-{MASK}"),
    ("ghp_abcdefghijklmnopqrstuvwxyz0123456789", f"ghp_{MASK}"),
    ("gho_abcdefghijklmnopqrstuvwxyz0123456789", f"gho_{MASK}"),
    (f"github_pat_11ABCDEFG0_{SECRET}", f"github_pat_{MASK}"),
    ("slack xoxb-1234567890-abcdefghij ok", f"slack xoxb-{MASK} ok"),
    ("xoxp-1234567890-0987654321-abc", f"xoxp-{MASK}"),
    ("aws AKIAIOSFODNN7EXAMPLE id", f"aws AKIA{MASK} id"),
    ("AIzaSyA-1234567890abcdefghijklmnopqrstu", f"AIza{MASK}"),
    (f"curl -H 'Authorization: Bearer {SECRET}'", f"curl -H 'Authorization: Bearer {MASK}'"),
    ("Authorization: Basic dXNlcjpwYXNzd29yZA==", f"Authorization: Basic {MASK}"),
    (f"authorization={SECRET}", f"authorization={MASK}"),
    (f'{{"authorization": "Bearer {SECRET}"}}', f'{{"authorization": "Bearer {MASK}"}}'),
    (f"fetch with Bearer {SECRET} now", f"fetch with Bearer {MASK} now"),
    ('{"apiKey": "abc123"}', f'{{"apiKey": "{MASK}"}}'),
    ('{"api_key":"zzz", "token": "t0k"}', f'{{"api_key":"{MASK}", "token": "{MASK}"}}'),
    ('{"client_secret": "s3cr\\"et", "password": "hunter2"}', f'{{"client_secret": "{MASK}", "password": "{MASK}"}}'),
    ('{"accessToken": "x", "refresh_token": "y"}', f'{{"accessToken": "{MASK}", "refresh_token": "{MASK}"}}'),
    ('{\\"password\\":\\"hunter2\\",\\"name\\":\\"x\\"}', f'{{\\"password\\":\\"{MASK}\\",\\"name\\":\\"x\\"}}'),
    ("export OPENAI_API_KEY=abcd1234efgh\nFOO=bar", f"export OPENAI_API_KEY={MASK}\nFOO=bar"),
    ('GITHUB_TOKEN="ghx"', f'GITHUB_TOKEN="{MASK}"'),
    ("DB_PASSWORD=plain", f"DB_PASSWORD={MASK}"),
    ("password: hunter2", f"password: {MASK}"),
    ('api_key = "live_abc"; x=1', f'api_key = "{MASK}"; x=1'),
    ("client.secret_key: 9f8e7d6c5b4a39281706", f"client.secret_key: {MASK}"),
    ("https://x/y?access_token=abc123def456&q=1", f"https://x/y?access_token={MASK}&q=1"),
    ("-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----",
     f"-----BEGIN RSA PRIVATE KEY-----{MASK}-----END RSA PRIVATE KEY-----"),
    ("-----BEGIN OPENSSH PRIVATE KEY-----\\nb3BlbnNzaC1rZXk\\n-----END OPENSSH PRIVATE KEY-----\\n",
     f"-----BEGIN OPENSSH PRIVATE KEY-----{MASK}-----END OPENSSH PRIVATE KEY-----\\n"),
    ("-----BEGIN PRIVATE KEY-----\nMIIE truncated", f"-----BEGIN PRIVATE KEY-----{MASK}"),
])
def test_secrets_are_masked(text, expected):
    out = redact(text)
    assert out == expected
    assert redact(out) == out  # idempotent


@pytest.mark.parametrize("text", [
    "Add a greeting to README.md and make src/app.py read the port from $PORT.",
    "commit 3f2a9c1d4e5b6a7f8091a2b3c4d5e6f708192a3b",
    "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "session 7f3c2a9e-5b1d-4c8a-9e21-d04b6f1a8c35 call_05_deploy",
    "the bearer of bad news; Bearer authentication is described here",
    "ask-me task-force risk-assessment-for-everyone-here-and-now desk-lamp",
    '{"max_tokens": 100, "inputTokens": 12, "tokenizer": "cl100k_base", "tokens": "many"}',
    "self.token = token; x = get_token(); secret_sauce = 1",
    "Secret: keep it safe. Token: the next one.",
    "password=${DB_PASSWORD} token: <your token> API_KEY= OPENAI_API_KEY=$OPENAI_API_KEY",
    '{"password": "", "apiKey": null}',
    "PWD=/home/user OLDPWD=/tmp",
    "AKIA is a prefix; AKIAshort; sk-short; ghp_tooShort",
    "highp_abcdefghijklmnopqrstuvwxyz0123456789 xAKIAIOSFODNN7EXAMPLE mask-abcdefghijklmnopqrstuvwxyz",
    "the public key -----BEGIN PUBLIC KEY-----\nMIIBIjANBg\n-----END PUBLIC KEY-----",
    "",
])
def test_ordinary_text_is_untouched(text):
    assert redact(text) == text
