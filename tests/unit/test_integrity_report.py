"""What check says about a decode that is not whole: unverified frames, and corruption past the cap."""

from __future__ import annotations

import json

import orjson
import zstandard

from dsh_tui.cli import main

from ..support.logs import HEADER, crash_records, ev, lines_of


def test_frames_without_a_checksum_are_called_unverified(tmp_path, capsys):
    plain = zstandard.ZstdCompressor(write_checksum=False)
    path = tmp_path / "session.jsonl.zstd"
    path.write_bytes(plain.compress(orjson.dumps(HEADER) + b"\n")
                     + plain.compress(b"".join(line + b"\n" for line in lines_of(crash_records()))))
    assert main(["check", str(path), "--format", "json", "--no-cache"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["unchecked_frames"] == 2 and out["whole"] is False
    assert "frame(s) carry no checksum" in out["snippet"]
    main(["check", str(path), "--no-cache"])
    assert "2 frame(s) carry no checksum: their bytes are unverified" in capsys.readouterr().out


def test_corruption_past_the_kept_records_is_counted(tmp_path, capsys):
    """Only the first corruption records are kept (memory); the report still counts every one."""
    good = [ev("feedback/record", k, {"text": "x"}) for k in range(3000)]
    body = b"\n".join(lines_of([HEADER])) + b"\n"
    body += b"".join(line + b"\n" + b"not json\n" for line in lines_of(good))
    path = tmp_path / "session.jsonl"
    path.write_bytes(body)
    assert main(["check", str(path), "--format", "json", "--no-cache"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert len(out["corruption"]) + out["corruption_dropped"] == 3000 and out["corruption_dropped"] > 0
    main(["check", str(path), "--no-cache"])
    assert "... and 2997 more corrupt record(s)" in capsys.readouterr().out
