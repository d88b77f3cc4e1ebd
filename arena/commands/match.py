"""`cxarena match` (not written yet)."""

from __future__ import annotations

import argparse

HELP = "(not implemented yet)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    pass


def run(args: argparse.Namespace) -> int:
    print("cxarena match: not implemented yet")
    return 1
