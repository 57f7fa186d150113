"""The browser tests' Chromium flags stay in step with the Playwright installed.

Chromium keeps only the last ``--disable-features`` it is given, so tests/chromium.py repeats
the features Playwright turns off in every Chromium it starts before adding its own. A
Playwright upgrade that changes its list makes this test fail, pointing at the copy to update.
"""

from __future__ import annotations

import re
from pathlib import Path

import playwright

from tests.chromium import PLAYWRIGHT_DISABLED_FEATURES

#: Where Playwright's driver defines its Chromium switches (bundled or as their own module).
DRIVER_LIB = Path(playwright.__file__).parent / "driver" / "package" / "lib"
LIST = re.compile(r"disabledFeatures = \[(.*?)\]", re.S)


def playwright_disabled_features() -> tuple[str, ...]:
    for source in sorted(DRIVER_LIB.rglob("*.js")):
        text = source.read_text(errors="replace")
        if "disabledFeatures = [" not in text:
            continue
        match = LIST.search(text)
        assert match, f"{source}: disabledFeatures is no longer a plain list"
        lines = (line.split("//")[0] for line in match.group(1).splitlines())
        return tuple(re.findall(r'"([^"]+)"', "\n".join(lines)))
    raise AssertionError(f"no disabledFeatures list under {DRIVER_LIB}: find where it went")


def test_the_disabled_features_repeat_playwrights() -> None:
    assert playwright_disabled_features() == PLAYWRIGHT_DISABLED_FEATURES, (
        "update PLAYWRIGHT_DISABLED_FEATURES in tests/chromium.py to Playwright's list"
    )
