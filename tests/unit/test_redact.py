"""Secrets are masked for shared bug reports; ordinary text, SHAs and UUIDs are not."""

from __future__ import annotations

import json

import orjson
import pytest

from dsh_tui.model.presenting.redact import MASK, redact

from ..support.logs import DSH_LOGS, crash_records

SECRET = "Zq8xK2mN7vB4cR9tY1wE5uJ3"  # a token-looking value reused below
JWT = "hbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"  # after eyJ
# The shapes the masking missed: (name, text, the secret part that must go, the masked text).
NEW_SHAPES = [
    ("jwt", f"jwt eyJ{JWT} ok", JWT, f"jwt eyJ{MASK} ok"),
    ("stripe-live", "stripe sk_live_51HqZ2aBcDeFgHiJkLmNoPq.", "51HqZ2aBcDeFgHiJkLmNoPq", f"stripe sk_live_{MASK}."),
    ("stripe-restricted", "rk_live_51HqZ2aBcDeFgHiJkLmNoPq", "51HqZ2aBcDeFgHiJkLmNoPq", f"rk_live_{MASK}"),
    ("postgres-url", "DATABASE postgres://admin:s3cr3t-Pw@db.example.com:5432/app", "s3cr3t-Pw",
     f"DATABASE postgres://admin:{MASK}@db.example.com:5432/app"),
    ("https-url", "git clone https://bot:Tk9-x_y@github.com/o/r.git", "Tk9-x_y",
     f"git clone https://bot:{MASK}@github.com/o/r.git"),
    ("bearer-lowercase", "curl -H 'authorization: bearer abcdef0123456789xyz'", "abcdef0123456789xyz",
     f"curl -H 'authorization: bearer {MASK}'"),
    ("bearer-alone-lowercase", "sent bearer abcdef0123456789xyz", "abcdef0123456789xyz", f"sent bearer {MASK}"),
    ("cookie", "curl -H 'Cookie: session=abc123def; csrftoken=zz9' x", "abc123def", f"curl -H 'Cookie: {MASK}' x"),
    ("set-cookie", "Set-Cookie: sid=Q2xvdWQ9MQ; Path=/; HttpOnly", "Q2xvdWQ9MQ", f"Set-Cookie: {MASK}"),
    ("azure-account-key",
     "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=Zm9vYmFyYmF6cXV4Zm9vYmFyYmF6cXV4Zm9vYmFy==;x=1",
     "Zm9vYmFyYmF6cXV4", f"DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={MASK};x=1"),
    ("sendgrid", "SENDGRID SG.abcdefghijklmnopqrstuv.abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQ",
     "abcdefghijklmnopqrstuvwxyzABCDEFG", f"SENDGRID SG.{MASK}"),
    ("npm", "//registry.npmjs.org/:_authToken npm_abcdefghijklmnopqrstuvwxyz0123456789",
     "abcdefghijklmnopqrstuvwxyz0123456789", f"//registry.npmjs.org/:_authToken npm_{MASK}"),
    ("slack-app", "xapp-1-A0123456789-1234567890123-abcdef0123456789", "abcdef0123456789", f"xapp-{MASK}"),
    ("mysql-p", "mysql -h db -u root -pHunter2x app", "Hunter2x", f"mysql -h db -u root -p{MASK} app"),
    ("mysqldump-p-quoted", "mysqldump -u r -p'x y z' db", "x y z", f"mysqldump -u r -p{MASK} db"),
    ("sshpass", "sshpass -p s3cretpw ssh host", "s3cretpw", f"sshpass -p {MASK} ssh host"),
    # issue 34 item 10 and issue 35 item 7
    ("curl-u", "curl -u admin:plainpw99 https://api.example.com", "plainpw99",
     f"curl -u admin:{MASK} https://api.example.com"),
    ("curl-user-quoted", "curl -s --user 'bob:pw with space' https://x", "pw with space",
     f"curl -s --user 'bob:{MASK}' https://x"),
    ("password-option-spaced", "tool login --password 'spaced secret' --user me", "spaced secret",
     f"tool login --password {MASK} --user me"),
    ("password-option-equals", "psql-tool --db-password=Hunter2pw x", "Hunter2pw", f"psql-tool --db-password={MASK} x"),
    ("azure-sas", "https://acct.blob.core.windows.net/c/b.txt?sv=2022-11-02&sr=b&sp=r&sig=Zm9vYmFyYmF6cXV4%2Bq%3D",
     "Zm9vYmFyYmF6cXV4", f"https://acct.blob.core.windows.net/c/b.txt?sv=2022-11-02&sr=b&sp=r&sig={MASK}"),
    ("aws-named", "aws configure set aws_secret_access_key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
     "wJalrXUtnFEMI", f"aws configure set aws_secret_access_key {MASK}"),
    ("aws-pair", "keys: AKIAIOSFODNN7EXAMPLE wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY done",
     "wJalrXUtnFEMI", f"keys: AKIA{MASK} {MASK} done"),
    ("aws-pair-csv", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY,AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI",
     f"{MASK},AKIA{MASK}"),
    ("twilio", "twilio key SK0123456789abcdef0123456789abcdef ok", "0123456789abcdef0123456789abcdef",
     f"twilio key SK{MASK} ok"),
    ("env-with-token-shape", "OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz0123", "abcdefghijklmnopqrstuvwxyz",
     f"OPENAI_API_KEY=sk-{MASK}"),
]


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
    *[(text, expected) for _, text, _, expected in NEW_SHAPES],
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


@pytest.mark.parametrize("name,text,secret", [(n, t, sec) for n, t, sec, _ in NEW_SHAPES],
                         ids=[n for n, *_ in NEW_SHAPES])
def test_new_shapes_are_masked_in_json_escaped_text(name, text, secret):
    """As a tool's arguments hold it (JSON in a JSON string) and as a raw record holds that (twice)."""
    once = json.dumps({"command": text})
    twice = json.dumps({"arguments": once})
    for form in (once, twice):
        out = redact(form)
        assert secret not in out and secret.replace('"', '\\"') not in out, out
        assert "[redacted]" in out


def _log_with_arguments(write_jsonl, arguments: str):
    from dsh_tui.model.diagnosing.diagnosis import diagnose
    from dsh_tui.model.reading.session import load_session
    records = crash_records()
    records[4]["data"]["arguments"] = arguments  # call_a's tool/call: TOOL_OUTCOME_UNKNOWN, the verdict
    records[3]["data"]["message"]["content"][0]["arguments"] = arguments
    log = load_session(write_jsonl(records))
    return log, diagnose(log)


@pytest.mark.parametrize("shown", [3, 10, 25, 45, 80])
@pytest.mark.parametrize("name,text,secret", [(n, t, sec) for n, t, sec, _ in NEW_SHAPES
                                              if n in ("jwt", "stripe-live", "postgres-url", "sendgrid", "npm")])
def test_a_secret_at_the_snippets_cut_is_masked_whole(write_jsonl, name, text, secret, shown):
    """The snippet cuts arguments at 200 and the index keeps a 240-char preview: the secret is masked
    in the whole value first, so no part of it shows at either cut (the y key, the markdown report).
    ``shown``: how many of the secret's characters come before the 200 cut (a long one also runs
    past 240)."""
    from dsh_tui.model.presenting.report import bug_report_markdown, snippet
    start = 200 - shown - text.index(secret)  # where the text starts in the arguments string
    arguments = json.dumps({"command": "x" * (start - len('{"command": "')) + text})
    assert arguments.index(secret) == 200 - shown
    log, diag = _log_with_arguments(write_jsonl, arguments)
    assert diag.verdict.call_id == "call_a"
    for out in (snippet(log, diag), bug_report_markdown(log, diag)):
        line = next(x for x in out.splitlines() if "arguments:" in x)
        shown = line.split("arguments:", 1)[1]
        assert not any(secret[i:i + 4] in shown for i in range(len(secret) - 3)), line


def _log_texts(path):
    """Every raw record of a log, then every string inside it (as the report reads values)."""
    from dsh_tui.model.reading.source import iter_plain, open_log
    raw, data, limit = open_log(path)
    chunks = [raw.plain] if raw.encoding == "jsonl" else iter_plain(raw, data, limit)
    for chunk in chunks:
        for line in bytes(chunk).split(b"\n"):
            if not line.strip():
                continue
            yield line.decode("utf-8", "replace")
            try:
                stack = [orjson.loads(line)]
            except orjson.JSONDecodeError:
                continue
            while stack:
                v = stack.pop()
                if isinstance(v, str):
                    yield v
                elif isinstance(v, dict):
                    stack += list(v.keys()) + list(v.values())
                elif isinstance(v, list):
                    stack += v


def test_real_logs_have_nothing_to_mask():
    """dsh's own logs hold no secret: the redactor changes nothing in any of them (callIds such as
    call_00_write_demo and toolu_..., hex SHAs, UUIDs, base64 ids, commands, diffs, prose).
    The 936k-event log is left out: ~60 MB of the same generated shapes the others hold."""
    if not DSH_LOGS.exists():
        pytest.skip("../shared/dsh-logs absent")
    paths = sorted(p for p in DSH_LOGS.rglob("*") if p.is_file() and p.name.endswith((".jsonl", ".zstd"))
                   and not p.name.startswith("big-"))
    assert len(paths) > 100
    changed = []
    for path in paths:
        for text in _log_texts(path):
            if redact(text) != text:
                changed.append((path.name, text[:200]))
    assert changed == []


@pytest.mark.parametrize("text", [
    "call_00_write_demo toolu_01A2b3C4d5E6f7G8h9J0kLmN call_000040 call_deploy",
    "mkdir -p /tmp/x && docker run -p 8080:80 -p8443:443 img && ssh -p2222 host && cp -pr a b",
    "git clone git@github.com:o/r.git; curl http://localhost:8080/a@b https://example.com/path?x=1",
    "ssh://git@github.com:22/o/r.git and user@example.com wrote it",
    "the cookie jar; Cookie: a small baked good; a bearer of news, bearer authentication",
    "eyJhbGciOiJIUzI1NiJ9 alone is a header, not a token; sk_live_short; SG.short.x",
    "npm_config_cache=/tmp npm_lifecycle_event=test",
    "mysql -u root -p db  # prompts for the password; mysql --help",
    "dGhpcyBpcyBqdXN0IGJhc2U2NCBkYXRhIG5vdCBhIHNlY3JldA== 4f9c2a1e-77d0-4c61-9a35-0b8e2c1f6d90",
    # the issue 34/35 shapes' neighbours: placeholders, prompts, options that only look alike
    "curl -u admin https://x (curl prompts for the password); curl -u $USER:$PASS x; curl -u '<user>:<pass>' x",
    "docker login --password-stdin; git --max-tokens 100; tool --password $PW; tool --token-file ~/.t",
    "the signature sig=abc; sig=short&x=1; design=signature-verified",
    "set aws_secret_access_key in ~/.aws/credentials; aws_session_token=$AWS_SESSION_TOKEN",
    "commit 3f2a9c1d4e5b6a7f8091a2b3c4d5e6f708192a3b, 3f2a9c1d4e5b6a7f8091a2b3c4d5e6f708192a3b",
    "SKU12345 SKIP_TESTS=1 SK0123 SKabcdefabcdefabcdefabcdefabcdefabcdefXYZ",
])
def test_lookalikes_are_untouched(text):
    assert redact(text) == text


@pytest.mark.parametrize("command,secret", [
    ("curl -u admin:plainpw99 https://api.example.com/deploy", "plainpw99"),
    ("OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz0123 ./run", "abcdefghijklmnopqrstuvwxyz"),
    ("login --password 'spaced secret' && aws configure set aws_secret_access_key "
     "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "spaced secret"),
])
def test_the_snippet_people_paste_is_masked_in_every_format(write_jsonl, capsys, isolated_xdg, command, secret):
    """`y` (the snippet), the markdown report and `check --format json`'s snippet mask the secret;
    `--raw-snippet` gives it back on purpose (issue 34 item 10)."""
    from dsh_tui.cli import main
    from dsh_tui.model.presenting.report import bug_report_markdown, snippet
    arguments = json.dumps({"command": command})
    log, diag = _log_with_arguments(write_jsonl, arguments)
    path = str(log.path)
    assert "[redacted][redacted]" not in snippet(log, diag)
    for out in (snippet(log, diag), bug_report_markdown(log, diag)):
        assert secret not in out and secret.replace("'", "\\'") not in out and "[redacted]" in out
    main(["check", path, "--no-cache", "--format", "json"])
    masked = orjson.loads(capsys.readouterr().out)["snippet"]
    main(["check", path, "--no-cache", "--format", "json", "--raw-snippet"])
    raw = orjson.loads(capsys.readouterr().out)["snippet"]
    assert secret not in masked and "[redacted]" in masked
    assert secret in raw.replace('\\"', '"') and "[redacted]" not in raw


def test_the_new_shapes_cost_linear_time_on_hostile_text():
    """Runs of what the curl, option, SAS and AWS patterns look for, each as long as the span a report
    masks (REDACT_SPAN), five times over: a pattern that backtracks quadratically takes minutes here,
    a linear one well under a second. Measured in a child with a generous bound, not timed in-process."""
    import sys
    from ..support.measured import run_measured
    code = ("from dsh_tui.model.presenting.redact import redact\n"
            "from dsh_tui.model.presenting.report import REDACT_SPAN as N\n"
            "runs = ['&' * N, '?' + 'a&' * (N // 2), 'sv=1&' * (N // 5), 'curl -u ' * (N // 8), '--' + 'a-' * (N // 2),\n"
            "        'AKIAIOSFODNN7EXAMPLE ' * (N // 21), 'aws_secret_access_key ' * (N // 22), '--password ' * (N // 11)]\n"
            "for _ in range(5):\n"
            "    for text in runs:\n"
            "        redact(text)\n")
    run = run_measured([sys.executable, "-c", code], timeout=20)
    assert not run.timed_out and run.rc == 0, run.stderr
