"""Headless Chromium as the browser tests and the benchmarks that open pages start it:
Debian's ``chromium`` through Playwright's ``executable_path``, with the switches below."""

from __future__ import annotations

import shutil

#: The features Playwright (1.65, its chromiumSwitches) turns off in every Chromium it starts.
#: Chromium keeps only the last ``--disable-features`` it is given, so ours repeats them
#: (tests/test_chromium_flags.py checks the copy against the Playwright installed).
PLAYWRIGHT_DISABLED_FEATURES = (
    "AvoidUnnecessaryBeforeUnloadCheckSync",
    "DestroyProfileOnBrowserClose",
    "HttpsUpgrades",
    "HttpsFirstBalancedModeAutoEnable",
    "LensOverlay",
    "MediaRouter",
    "PaintHolding",
    "ThirdPartyStoragePartitioning",
    "AvoidCorsURLLoaderRestartOnRedirect",
    "TcpPortRandomizationWin",
    "OptimizationHints",
    "NetworkTimeServiceQuerying",
    "AimEnabled",
    "PreconnectToSearch",
    "msForceBrowserSignIn",
    "msEdgeUpdateLaunchServicesPreferredVersion",
)
#: Chromium (156) gives every window, so every page a test opens, the address bar's WebUI
#: popup, rendered ahead in a process of its own: 0.5-0.9 CPU-seconds a page for a popup no
#: test opens (docs/performance.md, "The browser tests' time, third round").
OMNIBOX_POPUPS = ("WebUIOmniboxPopup", "WebUIOmniboxFullPopup", "WebUIOmniboxAimPopup")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-dev-shm-usage",
    "--disable-features=" + ",".join(PLAYWRIGHT_DISABLED_FEATURES + OMNIBOX_POPUPS),
]


def chromium_path() -> str | None:
    """Debian's Chromium (``chromium``, or ``chromium-browser`` elsewhere), or None."""
    return shutil.which("chromium") or shutil.which("chromium-browser")
