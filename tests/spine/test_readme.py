"""The README's statement table is the catalogue's (docs that match the code)."""
import re
from pathlib import Path

from typer.testing import CliRunner

from dpspec.conformance.cli import app

README = Path(__file__).resolve().parents[2] / "README.md"
BLOCK = re.compile(r"<!-- statements:start[^>]*-->\n(.*?)<!-- statements:end -->", re.S)


def readme_table() -> str:
    match = BLOCK.search(README.read_text(encoding="utf-8"))
    assert match, "README.md lacks the statements:start/end markers"
    return match.group(1)


def test_readme_statement_table_matches_the_catalogue():
    generated = CliRunner().invoke(app, ["list", "--markdown"])
    assert generated.exit_code == 0
    assert readme_table().strip() == generated.output.strip(), (
        "README.md's statement table is stale: regenerate it with `python tests/spine/test_readme.py`")


if __name__ == "__main__":  # regenerate the table in place
    table = CliRunner().invoke(app, ["list", "--markdown"]).output
    text = README.read_text(encoding="utf-8")
    start = BLOCK.search(text)
    README.write_text(text[:start.start(1)] + table.strip() + "\n" + text[start.end(1):], encoding="utf-8")
