"""`cxarena check-bot` (not written yet)."""

from __future__ import annotations

import argparse

HELP = "(not implemented yet)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    pass


def run(args: argparse.Namespace) -> int:
    print("cxarena check-bot: not implemented yet")
    return 1
