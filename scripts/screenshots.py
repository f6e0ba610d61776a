"""Drive the real app headlessly and save its views as SVG and PNG in ``screenshots/``.

The swarm is the real one: the commander on a fresh database, the starter swarm of three
autopilot Myses playing the embedded world. The script broadcasts an order through the
input bar, then visits the dashboard, the focus view, the context preview with its
strategy switcher, and the help. PNGs are made offline with CairoSVG (if it is missing,
only the SVGs are written and the script says so).

The default size, 200x50, is wide enough (from 160 columns) for the dashboard to show
the selected Mysis's newest request beside the panes, the README's headline picture:
NEXT REQUEST before the Mysis has sent one, then LAST REQUEST SENT while it plays.

    .venv/bin/python scripts/screenshots.py [--out screenshots] [--size 200x50]
"""

from __future__ import annotations

import argparse
import asyncio
import re
import sys
import tempfile
from pathlib import Path

from zoea_tui.config import Config
from zoea_tui.orchestrator.commander import Commander
from zoea_tui.ui.app import ZoeaApp

#: DejaVu Sans Mono's advance width in em: the PNG's font size is chosen so a
#: character is exactly one SVG cell wide (CairoSVG ignores ``textLength``).
DEJAVU_ADVANCE = 1233 / 2048

#: The terminal size of the screenshots: from 160 columns the dashboard shows a request.
DEFAULT_SIZE = "200x50"

#: PNG pixels per terminal column (1 600 pixels for 120 columns, as before; 2 667 for 200).
PNG_PIXELS_PER_COLUMN = 1600 / 120


def to_png(svg_path: Path, columns: int) -> Path | None:
    """Convert one SVG of a terminal ``columns`` wide to PNG with CairoSVG; None when
    CairoSVG is not installed."""
    try:
        import cairosvg  # type: ignore[import-not-found]
    except ImportError:
        return None
    svg = svg_path.read_text(encoding="utf-8")
    svg = svg.replace(
        "font-family: Fira Code, monospace", "font-family: DejaVu Sans Mono, monospace"
    )
    cell = re.search(r'textLength="([\d.]+)"[^>]*>[^<]</text>', svg)
    if cell is not None:
        size = float(cell.group(1)) / DEJAVU_ADVANCE
        svg = re.sub(r"font-size: [\d.]+px", f"font-size: {size:.3f}px", svg)
    png = svg_path.with_suffix(".png")
    width = round(columns * PNG_PIXELS_PER_COLUMN)
    cairosvg.svg2png(bytestring=svg.encode(), write_to=str(png), output_width=width)
    return png


async def capture(out: Path, size: tuple[int, int]) -> list[Path]:
    """Run the app through its views; returns the SVG files written."""
    written: list[Path] = []
    with tempfile.TemporaryDirectory() as tmp:

        async def open_commander() -> Commander:
            return await Commander.open(Config(), db_path=Path(tmp) / "zoea.db")

        app = ZoeaApp(open_commander)
        async with app.run_test(size=size) as pilot:

            async def wait(seconds: float) -> None:
                await asyncio.sleep(seconds)
                await pilot.pause()

            def shot(name: str) -> None:
                written.append(Path(app.save_screenshot(f"{name}.svg", path=str(out))))

            while app.commander is None:
                await wait(0.05)
            await wait(3.0)
            await pilot.press(
                "b",
                *"All pilots: mine iron ore, sell it at Sol Station, then report your credits.",
                "enter",
            )
            await wait(3.0)
            shot("dashboard")
            await pilot.press("enter")
            await wait(2.5)
            shot("focus")
            await pilot.press("p")
            await wait(1.5)
            await pilot.press("down")
            await wait(0.3)
            shot("context-preview")
            await pilot.press("escape", "escape", "question_mark")
            await wait(0.3)
            shot("help")
            await pilot.press("escape")
            await app.close_engine()
    return written


def main(argv: list[str] | None = None) -> int:
    """Write the screenshots; exit code 0 (1 when no PNG could be made)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("screenshots"))
    parser.add_argument("--size", default=DEFAULT_SIZE, help=f"terminal size ({DEFAULT_SIZE})")
    args = parser.parse_args(argv)
    width, height = (int(n) for n in args.size.lower().split("x"))
    args.out.mkdir(parents=True, exist_ok=True)
    svgs = asyncio.run(capture(args.out, (width, height)))
    missing_png = False
    for svg in svgs:
        png = to_png(svg, width)
        missing_png = missing_png or png is None
        print(f"{svg}" + (f"  {png}" if png else ""))
    if missing_png:
        print(
            "CairoSVG is not installed: only SVG files were written "
            "(pip install cairosvg makes the PNGs)",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
